#!/usr/bin/env bash
# Loss and partition campaign (issue 16 item 4), the long form of the network-namespace tests (docs/network-tests.md):
# ROUNDS rounds, each of
#   loss 1%:     NetworkLossIT with 20 ms delay and 1% loss: every collective at 8 B to 1 MiB exactly right;
#   loss 5%:     the same with 5% loss;
#   partition:   NetworkPartitionIT, both policies (links at 20 ms and 1% loss; rank 2 cut off after iteration 20):
#                abort, every rank fails naming rank 2 within heartbeat.timeout + 1 s; automatic, the three survivors
#                go on with right results on the rebuilt world and rank 2 fails.
# The default suite (./mvnw -B verify) runs the 5% loss test and the abort partition (with 1% loss) once.
# Needs root, ip, nft or iptables and python3 (scripts/netns/ensure-tools.sh); the tests skip without them, which
# counts as a failure here.
# Usage: scripts/netns/campaign.sh [ROUNDS] [SEED]
# Ends with: netns: P passed, F failed
set -u
cd "$(dirname "$0")/../.."
. scripts/find-jdk25.sh # ./mvnw needs a JDK 25: JAVA_HOME if it is one, else the newest in the system JVM folder
JAVA_HOME=$(find_jdk25) || exit 1
export JAVA_HOME

rounds=${1:-1}
seed=${2:-$(date +%s)}
RANDOM=$seed
echo "netns campaign: $rounds round(s), seed $seed (scripts/netns/campaign.sh $rounds $seed repeats them)"
passed=0
failed=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run NAME TEST [PROPERTY...]: one failsafe run of TEST in nexar-it; passes when it ran its tests, none skipped or failed
run() {
  local name=$1 test=$2
  shift 2
  local log=$work/run.log s=$RANDOM$RANDOM
  local start=$SECONDS
  ./mvnw -o -B -q verify -pl nexar-it -am -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
      -Dit.test="$test" -Dfailsafe.failIfNoSpecifiedTests=false -Dnexar.netns.seed="$s" "$@" >"$log" 2>&1
  local code=$?
  local summary=nexar-it/target/failsafe-reports/failsafe-summary.xml
  local ran skipped
  ran=$(sed -n 's:.*<completed>\([0-9]*\)</completed>.*:\1:p' "$summary" 2>/dev/null)
  skipped=$(sed -n 's:.*<skipped>\([0-9]*\)</skipped>.*:\1:p' "$summary" 2>/dev/null)
  if [ "$code" -eq 0 ] && [ "${ran:-0}" -gt 0 ] && [ "${skipped:-0}" -eq 0 ]; then
    passed=$((passed + 1))
    echo "netns: $name passed in $((SECONDS - start)) s (seed $s)"
  else
    failed=$((failed + 1))
    echo "netns: $name FAILED in $((SECONDS - start)) s (seed $s; exit $code, ran ${ran:-?}, skipped ${skipped:-?})"
    cp "$log" "netns-$name-$s.log" && echo "netns: output kept in netns-$name-$s.log"
    grep -E "lab: skipped|FAILED|MISMATCH|expected|Expect" "$log" | head -20
  fi
}

for ((round = 1; round <= rounds; round++)); do
  run "loss-1%" NetworkLossIT -Dnexar.netns.loss=0.01 -Dnexar.netns.delay-ms=20
  run "loss-5%" NetworkLossIT -Dnexar.netns.loss=0.05 -Dnexar.netns.delay-ms=20
  run "partition" NetworkPartitionIT -Dnexar.netns.long=true
done
echo "netns: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
