#!/usr/bin/env bash
# The project's Open MPI peer benchmark, kept in the repository so that scripts/side-by-side.sh runs from a clone alone.
# Build scripts/peers/mpi_coll.c and run it with 2 and 4 ranks in two modes:
#   tcp : ob1 PML, TCP BTL on the loopback interface only (plus self)
#   shm : ob1 PML, vader (shared memory, CMA single copy) BTL (plus self)
#         - this is what Debian's OpenMPI picks by default on one host.
# Prints one "RESULT ... rep=R" line per measurement (see mpi_coll.c).
#
# Usage: run_mpi.sh [reps]       (default 3)
# Env:   RANKS="2 4"  MODES="tcp shm"  TARGET_S=1 (seconds per measurement)
#        BUILD_DIR (default: $TMPDIR or /tmp, outside the repository)
#        OPS (comma list for mpi_coll -o; default all)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
reps=${1:-3}
RANKS=${RANKS:-"2 4"}
MODES=${MODES:-"tcp shm"}
TARGET_S=${TARGET_S:-1}
OPS=${OPS:-allreduce,bcast,allgather,barrier,pingpong}
build=${BUILD_DIR:-${TMPDIR:-/tmp}/nexar-peers-build}

if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
  echo "# installing OpenMPI from Debian" >&2
  apt-get update >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y openmpi-bin libopenmpi-dev >&2
fi

mkdir -p "$build"
mpicc -O2 -Wall -o "$build/mpi_coll" "$here/mpi_coll.c" -lm

echo "# $(mpirun --version 2>&1 | head -1); $(uname -r); $(nproc) cpus"

for rep in $(seq 1 "$reps"); do
  for np in $RANKS; do
    for mode in $MODES; do
      case $mode in
        tcp) mca=(--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo) ;;
        shm) mca=(--mca pml ob1 --mca btl vader,self) ;;
        *) echo "unknown mode $mode" >&2; exit 2 ;;
      esac
      # oob (runtime control traffic) is kept on loopback as well
      timeout 900 mpirun --allow-run-as-root --oversubscribe -np "$np" \
        --mca oob_tcp_if_include lo "${mca[@]}" \
        "$build/mpi_coll" -t "$mode" -T "$TARGET_S" -o "$OPS" |
        sed -e "s/^RESULT .*/& rep=$rep/"
    done
  done
done
