#!/usr/bin/env bash
# Fuzz campaign (issue 16 item 1, docs/testing.md "Fuzzing"): runs Jazzer on every fuzz target for SECONDS each, one
# target per Maven run (Jazzer fuzzes one @FuzzTest per JVM), with JAZZER_FUZZ=1. A target passes when Jazzer ends
# without a finding; a finding's input is written by Jazzer into the target's seed directory
# (src/test/resources/.../<Class>Inputs/<method>/crash-*), where the normal test run replays it from then on.
# Usage: scripts/fuzz.sh SECONDS [TARGET...]    TARGET is Class#method as listed below (default: all)
# Prints per target: executions, seconds, executions per second; ends with: fuzz: P passed, F failed
# Environment: FUZZ_LOG_DIR (default target/fuzz-logs) keeps each target's full Jazzer output.
set -u
cd "$(dirname "$0")/.."
seconds=${1:?usage: scripts/fuzz.sh SECONDS [Class#method...]}
shift
# module:Class#method
all=(
  nexar-core:ProtocolFuzzTest#frameDecoder
  nexar-core:ProtocolFuzzTest#messageCodec
  nexar-core:ProtocolFuzzTest#enrolmentCodec
  nexar-core:ProtocolFuzzTest#sparsePayload
  nexar-transport-quic:EnrolmentStreamFuzzTest#enrolmentStream
  nexar-transport-quic:PeerDescriptorFuzzTest#peerDescriptor
  nexar-transport-quic:SecurityFuzzTest#joinString
  nexar-transport-quic:SecurityFuzzTest#csr
)
targets=()
if [ $# -eq 0 ]; then
  targets=("${all[@]}")
else
  for want in "$@"; do
    found=""
    for t in "${all[@]}"; do [ "${t#*:}" = "$want" ] && found=$t; done
    [ -n "$found" ] || { echo "fuzz: unknown target '$want'; known: ${all[*]#*:}" >&2; exit 2; }
    targets+=("$found")
  done
fi
. scripts/find-jdk25.sh
JAVA_HOME=$(find_jdk25) || exit 3
export JAVA_HOME
logs=${FUZZ_LOG_DIR:-target/fuzz-logs}
mkdir -p "$logs"

passed=0
failed=0
for t in "${targets[@]}"; do
  module=${t%%:*}
  test=${t#*:}
  log=$logs/${test/\#/.}.log
  # -am builds nexar-core from the reactor (nothing is installed into ~/.m2); the test filter keeps the other
  # modules' tests from running. The JUnit timeout is disabled: a fuzzing run is one long invocation, and the
  # per-input timeout (@Timeout on the class) goes to libFuzzer as -timeout. No JVM options for a quick start
  # (nexar.fuzz.jvm.options): fuzzing wants the full JIT.
  JAZZER_FUZZ=1 nice -n 19 ./mvnw -o -q -pl "$module" -am verify -Dtest="$test" \
      -Dsurefire.failIfNoSpecifiedTests=false -Dnexar.junit.timeout.mode=disabled -Dnexar.fuzz.jvm.options= \
      -Djazzer.max_duration="${seconds}s" > "$log" 2>&1
  rc=$?
  done_line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1)
  runs=$(echo "$done_line" | awk '{print $2}')
  secs=$(echo "$done_line" | awk '{print $5}')
  rate=$([ -n "$runs" ] && [ "${secs:-0}" -gt 0 ] && echo $((runs / secs)) || echo "?")
  if [ $rc -eq 0 ] && [ -n "$done_line" ]; then
    passed=$((passed + 1))
    echo "fuzz: $test passed: ${runs} executions in ${secs} s (${rate}/s)"
  else
    failed=$((failed + 1))
    finding=$(grep -m1 -E '== Java Exception|FuzzTestFindingException|Test unit written to|ERROR' "$log")
    echo "fuzz: $test FAILED (exit $rc): ${runs:-?} executions; ${finding:-see $log}; log $log"
  fi
done
echo "fuzz: $passed passed, $failed failed"
[ $failed -eq 0 ]
