#!/usr/bin/env bash
# System calls per collective call, for the whole machine (issue 13: where a small collective's time goes). Runs one
# `nexar bench` with N warm-up calls and a single timed sample, under `perf stat -a`, and divides the counts by N: the
# warm-up dominates the run, so this is the cost of one call (plus a start-up share that N = 40,000 or more makes
# small). Needs perf with the syscalls tracepoints (root, or perf_event_paranoid allowing -a). Nothing else should run.
# Usage: scripts/syscalls-per-call.sh N BENCH-ARGS...   e.g. scripts/syscalls-per-call.sh 200000 --np 4 --op allreduce --sizes 8
# Prints the bench row, then: per call: writes W reads R yields Y futex F context-switches C
set -u
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  echo "usage: scripts/syscalls-per-call.sh N BENCH-ARGS..." >&2
  exit 2
fi
calls=$1; shift
if ! command -v perf > /dev/null; then
  echo "syscalls-per-call: perf is not installed" >&2
  exit 2
fi
events='syscalls:sys_enter_write,syscalls:sys_enter_read,syscalls:sys_enter_sched_yield,syscalls:sys_enter_futex,context-switches'
./nexar --version > /dev/null || exit 2 # the launcher builds its jar first if sources changed: not inside perf
out=$(mktemp)
trap 'rm -f "$out"' EXIT
perf stat -x, -o "$out" -e "$events" -a ./nexar bench "$@" --warmup "$calls" --iters 1 | grep -v '^#' | grep .
awk -F, -v calls="$calls" '
  $3 ~ /syscalls|context/ { v[$3] = $1 }
  END {
    if (!("syscalls:sys_enter_write" in v)) { print "syscalls-per-call: perf counted nothing (tracepoints unavailable?)"; exit 1 }
    printf "per call: writes %.2f reads %.2f yields %.2f futex %.2f context-switches %.2f\n",
      v["syscalls:sys_enter_write"] / calls, v["syscalls:sys_enter_read"] / calls,
      v["syscalls:sys_enter_sched_yield"] / calls, v["syscalls:sys_enter_futex"] / calls, v["context-switches"] / calls
  }' "$out"
