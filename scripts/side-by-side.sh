#!/usr/bin/env bash
# Issue 13's side-by-side run: nexar bench for every target row, then Open MPI over TCP (scripts/peers: run_mpi.sh with mpi_coll.c, and
# scripts/peers/mpi_big.c) in the same session, then one table: row, nexar, Open MPI, ratio (time nexar / time Open
# MPI), target, met. Takes about 10 minutes on the 2-core machine; run it on a quiet machine (nothing else building or
# testing), from anywhere. Usage: scripts/side-by-side.sh > sbs.log
#
# Method: nexar bench's default batch timing (back-to-back calls in samples of about 5 ms, slowest rank's mean per
# sample, median over samples), as Open MPI's mpi_coll.c. Small sizes warm up 30,000 calls: four JVMs on two cores
# need that long for C2 to finish compiling the small-message path (fewer measure the JIT, not the data path).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
. scripts/find-jdk25.sh
JAVA_HOME=$(find_jdk25) || exit 3
export JAVA_HOME
out=$(mktemp -d "${TMPDIR:-/tmp}/nexar-sbs.XXXXXX")
echo "# results in $out"
date -u
uptime
run() { # run NAME ARGS...: one nexar bench, its rows kept as $out/NAME.csv
  local name=$1
  shift
  echo "### nexar bench $*"
  timeout 900 ./nexar bench --csv "$out/$name.csv" "$@" 2>&1 | grep -E "^(allreduce|barrier|broadcast|allgather|reducescatter|sendrecv) "
}
run ar-small-4 --np 4 --op allreduce --sizes 8 --iters 200 --warmup 30000
run barrier-4 --np 4 --op barrier --iters 200 --warmup 30000
run ar-small-2 --np 2 --op allreduce --sizes 8 --iters 200 --warmup 30000
run barrier-2 --np 2 --op barrier --iters 200 --warmup 30000
# 64 KiB: 3,000 warm-ups left C2 compiling its path (710 us median there, 340 us after 20,000 on the same build)
run ar-64k-4 --np 4 --op allreduce --sizes 65536 --iters 50 --warmup 20000
run ar-1m-4 --np 4 --op allreduce --sizes 1048576 --iters 50 --warmup 3000
run ar-big-4 --np 4 --op allreduce --sizes 67108864 --iters 20 --warmup 10
run bcast-big-4 --np 4 --op broadcast --sizes 67108864 --iters 20 --warmup 10
run ag-big-4 --np 4 --op allgather --sizes 67108864 --iters 20 --warmup 10
run rs-big-4 --np 4 --op reducescatter --sizes 67108864 --iters 20 --warmup 10
run ar-big-plain-4 --np 4 --bulk tcp-plain --op allreduce --sizes 67108864 --iters 20 --warmup 10
echo "### Open MPI"
RANKS="2 4" MODES=tcp OPS=allreduce,bcast,barrier TARGET_S=1 bash scripts/peers/run_mpi.sh 1 2>&1 \
    | grep -E "^RESULT|^# mpi" | tee "$out/mpi.txt"
mpicc -O2 -Wall -o "$out/mpi_big" scripts/peers/mpi_big.c \
    && timeout 900 mpirun --allow-run-as-root --oversubscribe -np 4 --mca oob_tcp_if_include lo --mca pml ob1 \
        --mca btl tcp,self --mca btl_tcp_if_include lo "$out/mpi_big" -S 10 2>&1 | grep -E "^RESULT" \
    | tee -a "$out/mpi.txt"
date -u
python3 - "$out" <<'EOF'
import csv, glob, os, re, sys
out = sys.argv[1]
ours = {}
cpu = {}
for path in glob.glob(os.path.join(out, "*.csv")):
    name = os.path.basename(path)[:-4]
    ranks = int(name.rsplit("-", 1)[1])
    plain = "plain" in name
    with open(path) as f:
        for row in csv.DictReader(f):
            key = (row["op"], int(row["size_bytes"]), ranks, plain)
            ours[key] = float(row["time_us_median"])
            cpu[key] = float(row["cpu_us_per_call"]) if row.get("cpu_us_per_call") else None
mpi = {}
names = {"bcast": "broadcast"}
for line in open(os.path.join(out, "mpi.txt")):
    if not line.startswith("RESULT"):
        continue
    kv = dict(p.split("=", 1) for p in line.split()[1:])
    op = names.get(kv["op"], kv["op"])
    mpi[(op, int(kv["bytes"]), int(kv["ranks"]))] = float(kv["median_us"])
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
print()
# last column: CPU time of all nexar ranks together per call (bench's cpu_us_per_call)
print("| row | nexar | Open MPI TCP | ratio | target | met | nexar CPU per call |")
print("|---|---:|---:|---:|---:|---|---:|")
for label, op, size, ranks, plain, target in rows:
    a = ours.get((op, size, ranks, plain))
    b = mpi.get((op, size, ranks))
    ratio = a / b if a and b else None
    met = "-" if ratio is None else ("yes" if ratio <= target else "no")
    print("| %s | %s | %s | %s | <= %.1fx | %s | %s |" % (label, fmt(a), fmt(b),
          "-" if ratio is None else "%.2fx" % ratio, target, met, fmt(cpu.get((op, size, ranks, plain)))))
EOF
