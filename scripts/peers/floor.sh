#!/usr/bin/env bash
# The JVM floor beside nexar and Open MPI: builds the floor study's prototypes (../shared/reference/jvm-tls-floor, or
# FLOOR_SRC) and runs them for the side-by-side rows they cover, so that a run can say how far each nexar row is from
# what a JVM with TLS 1.3 does on the same machine in the same minutes (issue 13: "where a target is not met, the note
# says what limits it, measured").
#
#   LatNio: non-blocking BoringSSL (netty-tcnative) connections, the caller polling with Thread.yield() for 200 us
#           before it blocks; 8-byte allreduce and barrier, timed as nexar bench does (median over ~5 ms batches of
#           the slowest rank's mean): the batch_med_us field
#   BwRing: the pipelined ring allreduce (a reader thread per connection decrypting into place, the caller sending),
#           BoringSSL or plain TCP; median per iteration after a barrier: the med_ms field
#
# Usage: scripts/peers/floor.sh WORKDIR [ROUND]   (builds into WORKDIR once; about 2 minutes a call)
# Prints one line per row:  FLOOR op=allreduce bytes=8 ranks=4 engine=openssl us=36.0 cpu_us=78.4 round=R
# Exit: 0, or 3 when the prototypes' sources, a JDK 25 or the build are missing (the reason on stderr).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=${1:?usage: scripts/peers/floor.sh WORKDIR [ROUND]}
round=${2:-1}
src=${FLOOR_SRC:-$root/../shared/reference/jvm-tls-floor}
if [ ! -f "$src/Floor.java" ] || [ ! -f "$src/netty/pom.xml" ]; then
  echo "floor: no floor study sources in $src (set FLOOR_SRC)" >&2
  exit 3
fi
. "$root/scripts/find-jdk25.sh"
JAVA_HOME=$(find_jdk25) || exit 3
export JAVA_HOME
java=$JAVA_HOME/bin/java
mkdir -p "$work"
work=$(cd "$work" && pwd)

build() {
  [ -f "$work/build/LatNio.class" ] && [ -f "$work/floor.p12" ] && return 0
  echo "floor: building the prototypes from $src into $work" >&2
  (cd "$root" && ./mvnw -q -B -f "$src/netty/pom.xml" dependency:copy-dependencies \
      -DoutputDirectory="$work/lib") >&2 || return 1
  mkdir -p "$work/build"
  "$JAVA_HOME/bin/javac" -nowarn --add-modules jdk.incubator.vector -cp "$work/lib/*" -d "$work/build" \
      "$src"/*.java 2>&1 | grep -v "incubat" >&2
  [ -f "$work/build/LatNio.class" ] || return 1
  rm -f "$work/floor.p12"
  "$JAVA_HOME/bin/keytool" -genkeypair -alias floor -keyalg EC -groupname secp256r1 -dname CN=floor -validity 30 \
      -storetype PKCS12 -keystore "$work/floor.p12" -storepass changeit -keypass changeit >/dev/null 2>&1 || return 1
}
build || { echo "floor: the build failed" >&2; exit 3; }

# launch NP CLASS JVM-OPTIONS...: NP JVMs on loopback (full mesh from a random port), prints rank 0's RESULT lines
launch() {
  local np=$1 cls=$2
  shift 2
  local out
  out=$(mktemp -d "$work/run.XXXXXX")
  local port=$((20000 + RANDOM % 30000)) pids=() rc=0
  for ((r = 0; r < np; r++)); do
    RANK=$r NP=$np PORT=$port OUTDIR=$out KEYSTORE=$work/floor.p12 timeout 600 "$java" -Xms1g -Xmx1g \
        -XX:+UseParallelGC --add-modules jdk.incubator.vector -cp "$work/build:$work/lib/*" "$@" "$cls" \
        >"$out/out.$r" 2>"$out/err.$r" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || rc=$?; done
  if [ "$rc" != 0 ]; then
    echo "floor: $cls $* failed (rc=$rc)" >&2
    tail -n 5 "$out"/err.* >&2
  fi
  grep "^RESULT" "$out/out.0"
  rm -rf "$out"
}

# RESULT key=value ... -> FLOOR line (the latency prototypes' batch median; the ring's median per iteration)
emit() {
  python3 -c '
import sys
r = sys.argv[1]
for line in sys.stdin:
    kv = dict(p.split("=", 1) for p in line.split()[1:] if "=" in p)
    if "batch_med_us" in kv:
        us, cpu = float(kv["batch_med_us"]), float(kv["cpu_us_per_op"])
    else:
        us, cpu = float(kv["med_ms"]) * 1000, float(kv["cpu_ms_per_op"]) * 1000
    print("FLOOR op=%s bytes=%s ranks=%s engine=%s us=%.1f cpu_us=%.1f round=%s"
          % (kv["op"], kv["bytes"], kv["ranks"], kv["engine"], us, cpu, r))
' "$round"
}

for np in 4 2; do
  launch "$np" LatNio -Dtransport=tls -Dengine=openssl -Dspin_us=200 -Dspin_yield=true -Diters=100000 \
      -Dwarmup=100000 | emit
done
launch 4 BwRing -Dengine=openssl -Dbytes=1048576 -Dchunk=262144 -Diters=1000 -Dwarmup=2000 | emit
launch 4 BwRing -Dengine=openssl -Diters=10 -Dwarmup=5 | emit
launch 4 BwRing -Dengine=plain -Diters=10 -Dwarmup=5 | emit
