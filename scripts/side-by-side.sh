#!/usr/bin/env bash
# Issue 13's side-by-side run: nexar bench for every target row, then Open MPI over TCP (scripts/peers: run_mpi.sh with
# mpi_coll.c, and scripts/peers/mpi_big.c) in the same session, ROUNDS times interleaved (nexar, Open MPI, nexar, Open
# MPI, ...), then one table: row, nexar, Open MPI, ratio (time nexar / time Open MPI), target, met, nexar's CPU per
# call, and each round's own ratio. nexar and Open MPI are each the median of their rounds (for two rounds, the mean),
# the ratio is theirs. This machine's numbers move by up to 2-4x from one run to the next for either side (Open MPI's
# 1 MiB allreduce measured 0.9 and 2.8 ms 20 minutes apart), so one round says little; interleaved rounds put both
# sides through the same moments. About 5 minutes a round on the 2-core machine; run it on a quiet machine (nothing
# else building or testing), from anywhere. Usage: [ROUNDS=2] [FLOOR=1] scripts/side-by-side.sh > sbs.log
#
# FLOOR=1 also runs the floor study's JVM prototypes each round (scripts/peers/floor.sh: BoringSSL latency rows, the
# ring at 1 MiB and 64 MiB with TLS and plain TCP; about 2 more minutes a round) and prints a second table: nexar
# against the JVM floor and the floor against Open MPI, all from the same rounds.
#
# Method: nexar bench's default batch timing (back-to-back calls in samples of about 5 ms, slowest rank's mean per
# sample, median over samples), as Open MPI's mpi_coll.c. The 8-byte and barrier rows warm up 200,000 calls: four
# JVMs on two cores still spend 30-50% of the CPU in C2 8-10 s after start, so after 30,000 calls (about 1.5 s) the
# timed samples shared the cores with the compiler (8-byte allreduce 45.4-49.8 us against 44.3-44.6 us after
# 200,000; docs/performance.md, 2026-12-06 18:20); fewer measure the JIT, not the data path.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
. scripts/find-jdk25.sh
JAVA_HOME=$(find_jdk25) || exit 3
export JAVA_HOME
rounds=${ROUNDS:-2}
out=$(mktemp -d "${TMPDIR:-/tmp}/nexar-sbs.XXXXXX")
echo "# results in $out; $rounds interleaved rounds"
date -u
uptime
mpicc -O2 -Wall -o "$out/mpi_big" scripts/peers/mpi_big.c || exit 3
run() { # run NAME ARGS...: one nexar bench, its rows kept as $out/NAME.r$round.csv
  local name=$1
  shift
  echo "### nexar bench $*"
  timeout 900 ./nexar bench --csv "$out/$name.r$round.csv" "$@" 2>&1 \
      | grep -E "^(allreduce|barrier|broadcast|allgather|reducescatter|sendrecv) "
}
for round in $(seq 1 "$rounds"); do
  echo "## round $round"
  run ar-small-4 --np 4 --op allreduce --sizes 8 --iters 200 --warmup 200000
  run barrier-4 --np 4 --op barrier --iters 200 --warmup 200000
  run ar-small-2 --np 2 --op allreduce --sizes 8 --iters 200 --warmup 200000
  run barrier-2 --np 2 --op barrier --iters 200 --warmup 200000
  # 64 KiB: 3,000 warm-ups left C2 compiling its path (710 us median there, 340 us after 20,000 on the same build)
  run ar-64k-4 --np 4 --op allreduce --sizes 65536 --iters 50 --warmup 20000
  run ar-1m-4 --np 4 --op allreduce --sizes 1048576 --iters 50 --warmup 3000
  run ar-big-4 --np 4 --op allreduce --sizes 67108864 --iters 20 --warmup 10
  run bcast-big-4 --np 4 --op broadcast --sizes 67108864 --iters 20 --warmup 10
  run ag-big-4 --np 4 --op allgather --sizes 67108864 --iters 20 --warmup 10
  run rs-big-4 --np 4 --op reducescatter --sizes 67108864 --iters 20 --warmup 10
  run ar-big-plain-4 --np 4 --bulk tcp-plain --op allreduce --sizes 67108864 --iters 20 --warmup 10
  echo "### Open MPI"
  RANKS="2 4" MODES=tcp OPS=allreduce,bcast,barrier TARGET_S=1 BUILD_DIR="$out" bash scripts/peers/run_mpi.sh 1 2>&1 \
      | grep -E "^RESULT|^# mpi" | sed "s/ rep=1\$/ round=$round/" | tee -a "$out/mpi.txt"
  timeout 900 mpirun --allow-run-as-root --oversubscribe -np 4 --mca oob_tcp_if_include lo --mca pml ob1 \
      --mca btl tcp,self --mca btl_tcp_if_include lo "$out/mpi_big" -S 10 2>&1 | grep -E "^RESULT" \
      | sed "s/\$/ round=$round/" | tee -a "$out/mpi.txt"
  if [ "${FLOOR:-0}" = 1 ]; then
    echo "### JVM floor"
    scripts/peers/floor.sh "$out/floor" "$round" | tee -a "$out/floor.txt"
  fi
done
date -u
python3 - "$out" <<'EOF'
import csv, glob, os, re, statistics, sys
out = sys.argv[1]
ours = {}  # key -> {round: time}
cpu = {}
for path in glob.glob(os.path.join(out, "*.csv")):
    name, rnd = os.path.basename(path)[:-4].rsplit(".r", 1)
    ranks = int(name.rsplit("-", 1)[1])
    plain = "plain" in name
    with open(path) as f:
        for row in csv.DictReader(f):
            key = (row["op"], int(row["size_bytes"]), ranks, plain)
            ours.setdefault(key, {})[int(rnd)] = float(row["time_us_median"])
            if row.get("cpu_us_per_call"):
                cpu.setdefault(key, {})[int(rnd)] = float(row["cpu_us_per_call"])
mpi = {}
names = {"bcast": "broadcast"}
for line in open(os.path.join(out, "mpi.txt")):
    if not line.startswith("RESULT"):
        continue
    kv = dict(p.split("=", 1) for p in line.split()[1:])
    op = names.get(kv["op"], kv["op"])
    mpi.setdefault((op, int(kv["bytes"]), int(kv["ranks"])), {})[int(kv.get("round", 1))] = float(kv["median_us"])
MIB = 1 << 20
rows = [  # (label, op, bytes, ranks, plain, target ratio)
    ("allreduce 8 B, 4 ranks", "allreduce", 8, 4, False, 1.0),
    ("allreduce 64 KiB, 4 ranks", "allreduce", 65536, 4, False, 1.0),
    ("allreduce 1 MiB, 4 ranks", "allreduce", MIB, 4, False, 1.0),
    ("allreduce 64 MiB, 4 ranks", "allreduce", 64 * MIB, 4, False, 1.0),
    ("barrier, 4 ranks", "barrier", 0, 4, False, 1.0),
    ("broadcast 64 MiB, 4 ranks", "broadcast", 64 * MIB, 4, False, 1.0),
    ("allgather 64 MiB, 4 ranks", "allgather", 64 * MIB, 4, False, 1.0),
    ("reduce-scatter 64 MiB, 4 ranks", "reducescatter", 64 * MIB, 4, False, 1.0),
    ("allreduce 8 B, 2 ranks", "allreduce", 8, 2, False, 1.2),
    ("barrier, 2 ranks", "barrier", 0, 2, False, 1.2),
    ("allreduce 64 MiB, 4 ranks, bulk=tcp-plain", "allreduce", 64 * MIB, 4, True, 0.7),
]
def fmt(us):
    return "-" if us is None else ("%.1f us" % us if us < 1000 else "%.2f ms" % (us / 1000))
def med(d):
    return statistics.median(d.values()) if d else None
print()
# nexar, Open MPI: medians over the rounds; CPU: nexar's ranks together per call (bench's cpu_us_per_call), median;
# last column: each round's own ratio (nexar / Open MPI of that round)
print("| row | nexar | Open MPI TCP | ratio | target | met | nexar CPU per call | ratio per round |")
print("|---|---:|---:|---:|---:|---|---:|---|")
for label, op, size, ranks, plain, target in rows:
    a = ours.get((op, size, ranks, plain), {})
    b = mpi.get((op, size, ranks), {})
    ratio = med(a) / med(b) if a and b else None
    met = "-" if ratio is None else ("yes" if ratio <= target else "no")
    per = ", ".join("%.2fx" % (a[r] / b[r]) for r in sorted(a) if r in b) or "-"
    print("| %s | %s | %s | %s | <= %.1fx | %s | %s | %s |" % (label, fmt(med(a)), fmt(med(b)),
          "-" if ratio is None else "%.2fx" % ratio, target, met, fmt(med(cpu.get((op, size, ranks, plain), {}))), per))
floor = {}
floor_path = os.path.join(out, "floor.txt")
if os.path.exists(floor_path):
    for line in open(floor_path):
        if not line.startswith("FLOOR "):
            continue
        kv = dict(p.split("=", 1) for p in line.split()[1:])
        key = (kv["op"], int(kv["bytes"]), int(kv["ranks"]), kv["engine"] == "plain")
        floor.setdefault(key, {})[int(kv["round"])] = float(kv["us"])
if floor:
    print()
    # the JVM floor (scripts/peers/floor.sh) in the same rounds: nexar / floor says what nexar's design costs, floor /
    # Open MPI what the JVM with TLS (or plain TCP) costs on this machine
    print("| row | nexar | JVM floor | nexar / floor | Open MPI TCP | floor / Open MPI |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, op, size, ranks, plain, target in rows:
        f = floor.get((op, size, ranks, plain), {})
        if not f:
            continue
        a = ours.get((op, size, ranks, plain), {})
        b = mpi.get((op, size, ranks), {})
        print("| %s | %s | %s | %s | %s | %s |" % (label, fmt(med(a)), fmt(med(f)),
              "%.2fx" % (med(a) / med(f)) if a else "-", fmt(med(b)), "%.2fx" % (med(f) / med(b)) if b else "-"))
EOF
