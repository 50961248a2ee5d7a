#!/usr/bin/env bash
# Soak campaign (issue 16): 4 processes run io.nexar.examples.Soak under `nexar launch` for MINUTES: mixed
# collectives and point-to-point messages of every size class, every result checked. Each rank samples itself every
# SOAK_SAMPLE_SECONDS (default 10) after a garbage collection: heap in use, resident set size, threads, open file
# descriptors. The JVMs get a fixed, pre-touched heap (-Xms256m -Xmx256m -XX:+AlwaysPreTouch unless
# NEXAR_WORKER_JAVA_OPTS says otherwise), so that RSS growth is native memory, not the heap growing into its maximum.
# The script then judges, per rank, that each stayed flat after warm-up: the baseline is the rank's first sample at or
# after a third of the run (at most 60 s in), and the bounds over every later sample are:
#   heap after GC   at most 16 MiB above the baseline
#   RSS             at most 64 MiB above the baseline (SOAK_RSS_BOUND_MIB; a run of a minute or less is still
#                   in the JIT's warm-up, which the suite's short run allows for)
#   threads         at most 2 above the baseline
#   file descriptors at most 4 above the baseline
# plus, per rank, every result right; and for the job: exit 0 and at least SOAK_MIN_OPS operations (default 100000,
# counted as rank 0's calls).
# Usage: scripts/soak.sh MINUTES (fractions allowed: 0.5)
# Ends with: soak: P passed, F failed
# Environment: SOAK_SAMPLE_SECONDS, SOAK_MIN_OPS, SOAK_RANKS (default 4), SOAK_KEEP=1 keeps the job's output.
set -u
cd "$(dirname "$0")/.."

minutes=${1:?usage: scripts/soak.sh MINUTES}
sample=${SOAK_SAMPLE_SECONDS:-10}
min_ops=${SOAK_MIN_OPS:-100000}
ranks=${SOAK_RANKS:-4}
seconds=$(python3 -c "import sys; m=float('$minutes'); sys.exit('soak: MINUTES must be positive') if m <= 0 else print(int(m*60))") || exit 2
limit_s=$((seconds + 180))
export NEXAR_WORKER_JAVA_OPTS=${NEXAR_WORKER_JAVA_OPTS:--Xms256m -Xmx256m -XX:+AlwaysPreTouch}
out=$(mktemp)
echo "soak: $ranks ranks for ${seconds} s, a sample every ${sample} s, at least $min_ops operations; output $out"

setsid ./nexar launch -n "$ranks" io.nexar.examples.Soak "$seconds" "$sample" >"$out" 2>&1 &
launcher=$!
start=$(date +%s)
while kill -0 "$launcher" 2>/dev/null; do # bounded wait
    if [ $(( $(date +%s) - start )) -gt "$limit_s" ]; then
        echo "soak: still running ${limit_s} s after its start (a hang): ending it"
        kill -9 -- "-$launcher" 2>/dev/null
        break
    fi
    sleep 1
done
wait "$launcher" 2>/dev/null
code=$?
grep -E 'soak sample|soak done|WRONG' "$out"
grep -E 'Exception|error' "$out" | head -20

SOAK_RSS_BOUND_MIB=${SOAK_RSS_BOUND_MIB:-64} python3 - "$out" "$ranks" "$min_ops" "$code" "$seconds" <<'EOF'
import os, re, sys
path, ranks, min_ops, code, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
warm_up = min(60, seconds / 3)
MiB = 1 << 20
bounds = {"heap": 16 * MiB, "rss": int(os.environ["SOAK_RSS_BOUND_MIB"]) * MiB, "threads": 2, "fds": 4}
samples = {r: [] for r in range(ranks)}
done = {}
for line in open(path, errors="replace"):
    m = re.match(r"^\[rank (\d+)\] soak sample t=(\d+)s ops=(\d+) heap=(\d+) rss=(-?\d+) threads=(\d+) fds=(-?\d+)", line)
    if m:
        r = int(m.group(1))
        samples.setdefault(r, []).append(dict(t=int(m.group(2)), ops=int(m.group(3)), heap=int(m.group(4)),
                                              rss=int(m.group(5)), threads=int(m.group(6)), fds=int(m.group(7))))
    m = re.match(r"^\[rank (\d+)\] soak done: ops=(\d+) wrong=(\d+)", line)
    if m:
        done[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
passed = failed = 0
def verdict(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
    print(("pass: " if ok else "FAIL: ") + what)
verdict(code == 0, f"the job exited {code}")
ops = done.get(0, (0, 0))[0]
verdict(ops >= min_ops, f"{ops} operations (at least {min_ops})")
for r in range(ranks):
    verdict(r in done and done[r][1] == 0, f"rank {r}: every result right"
            + (f" ({done[r][1]} wrong)" if r in done else " (it did not finish)"))
    s = samples.get(r, [])
    if len(s) < 2:
        verdict(False, f"rank {r}: {len(s)} samples, too few to judge")
        continue
    later = [x for x in s if x["t"] >= warm_up]
    base = later[0] if len(later) >= 2 else s[-2]
    for key, bound in bounds.items():
        if base[key] < 0:
            continue  # not measurable here (no /proc)
        rise = max(x[key] for x in s[s.index(base):]) - base[key]
        unit = (lambda v: f"{v / MiB:.1f} MiB") if key in ("heap", "rss") else str
        verdict(rise <= bound, f"rank {r}: {key} rose {unit(rise)} over {s[-1]['t'] - base['t']} s "
                f"(from {unit(base[key])}; bound {unit(bound)})")
print(f"soak: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
EOF
result=$?
[ "$result" -eq 0 ] && [ "${SOAK_KEEP:-0}" != 1 ] && rm -f "$out"
exit "$result"
