#!/usr/bin/env bash
# Issue 5's side-by-side run: nexar bench for every target, then Open MPI over TCP and raw JDK TLS sockets, in one
# session, so the ratios in docs/performance.md come from one run. Takes about 6 minutes on the 2-core machine; run
# it on a quiet machine (nothing else building or testing). Usage: scripts/side-by-side.sh > sbs.log
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
. scripts/find-jdk25.sh
JAVA_HOME=$(find_jdk25) || exit 3
export JAVA_HOME
run() { echo "### nexar bench $*"; timeout 600 ./nexar bench "$@" 2>&1 | grep -E "^(allreduce|barrier|broadcast|allgather|sendrecv) "; }
date -u
uptime
run --np 4 --op allreduce --sizes 8 --iters 1000 --warmup 3000
run --np 4 --op barrier --iters 1000 --warmup 3000
run --np 2 --op allreduce --sizes 8 --iters 1000 --warmup 3000
run --np 2 --op barrier --iters 1000 --warmup 3000
run --np 4 --op allreduce --sizes 65536,1048576 --iters 50 --warmup 300
run --np 4 --op allreduce --sizes 67108864 --iters 20 --warmup 10
run --np 4 --op broadcast --sizes 67108864 --iters 20 --warmup 10
run --np 4 --op allgather --sizes 67108864 --iters 20 --warmup 10
run --np 2 --op sendrecv --sizes 67108864 --iters 20 --warmup 10
echo "### Open MPI"
RANKS="2 4" MODES=tcp OPS=allreduce,bcast,allgather,barrier TARGET_S=1 bash ../shared/bench/peers/run_mpi.sh 1 2>&1 \
    | grep -E "^RESULT|^# mpi"
echo "### raw JDK TLS sockets"
./mvnw -B -o -q test-compile dependency:build-classpath -pl nexar-transport-quic -am \
    -Dmdep.outputFile=target/bench-cp.txt -Dmdep.includeScope=test >/dev/null 2>&1
cp="nexar-transport-quic/target/test-classes:nexar-transport-quic/target/classes:$(cat nexar-transport-quic/target/bench-cp.txt)"
"$JAVA_HOME/bin/java" -Dbench.rounds=20 -Dbench.warmup=10 -cp "$cp" io.nexar.transport.quic.TlsSocketBench exchange 2>&1 | tail -1
date -u
