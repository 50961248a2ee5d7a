#!/usr/bin/env bash
# Best effort, for CI machines: installs what the network-namespace tests (nexar-it, docs/network-tests.md) use when
# it is missing: nft (nftables), iptables (for NFQUEUE where the kernel lacks nft's queue expression) and python3 (the
# userspace delayer). Only as root and only with apt-get; bounded in time; never fails the caller. Without these tools
# the tests skip themselves with a printed reason.
set -u
missing=()
have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/sbin/$1" ]; }
have nft || missing+=(nftables)
have iptables || missing+=(iptables)
have python3 || missing+=(python3)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "netns tools: missing ${missing[*]}; not root or no apt-get, so the network-namespace tests will skip" >&2
  exit 0
fi
echo "netns tools: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
install() { timeout 240 apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null; }
if ! install; then
  timeout 240 apt-get update -q >/dev/null && install
fi || echo "netns tools: could not install ${missing[*]}; the network-namespace tests will skip" >&2
exit 0
