package io.nexar.it.netns;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.it.LabProcess;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Four ranks in their own network namespaces, every link between two ranks delayed by 20 ms one way and losing 5%
 * of its packets (seeded; {@code -Dnexar.netns.seed=N} repeats a run): every collective must still give exactly the
 * right result on every rank, only slower. {@code -Dnexar.netns.loss=0.01} and {@code -Dnexar.netns.delay-ms=N}
 * change the impairment ({@code scripts/netns/campaign.sh} runs 1% and 5%). See docs/network-tests.md.
 */
class NetworkLossIT {
    private static final int WORLD = 4;
    private static final Duration DELAY = Duration.ofMillis(Long.getLong("nexar.netns.delay-ms", 20));
    private static final double LOSS = Double.parseDouble(System.getProperty("nexar.netns.loss", "0.05"));
    /** Bytes of the largest buffer of each operation; 1001 elements of 8 bytes give counts that do not divide. */
    private static final String SIZES = "8,8008,65536,1048576";
    private static final Duration RUN_LIMIT = Duration.ofSeconds(200);
    /**
     * Whether ranks hold after their checks until every rank is done. {@code -Dnexar.netns.hold=false} lets each rank
     * close as soon as its own part is done: with 20 ms delays, slower ranks are then still inside the last
     * collective when the first one leaves, which today fails them ("rank 0 left"; see docs/network-tests.md).
     */
    private static final boolean HOLD = Boolean.parseBoolean(System.getProperty("nexar.netns.hold", "true"));
    private static final Pattern OK = Pattern.compile("ok op=(\\w+) bytes=(\\d+) ms=(\\d+)");

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void shouldGetEveryCollectiveRightOverLossyDelayedLinks() throws Exception {
        long seed = Long.getLong("nexar.netns.seed", System.nanoTime() & 0xffff_ffffL);
        System.out.println("loss test: seed " + seed + " (rerun with -Dnexar.netns.seed=" + seed + ")");
        long start = System.nanoTime();
        try (var lab = NetnsLab.create(WORLD)) {
            LabProcess delayer = lab.impair(DELAY, LOSS, seed);
            var cluster = NetnsCluster.seed(lab, WORLD);
            long launched = System.nanoTime();
            // Generous operation deadlines: this test is about correctness on a bad network, not about speed.
            cluster.startRanks(Map.of("NEXAR_COLLECTIVE_TIMEOUT", "120s", "NEXAR_P2P_TIMEOUT", "120s"),
                    List.of("collectives", "sizes=" + SIZES, "rounds=1", "hold=" + HOLD,
                            "limit=" + RUN_LIMIT.toSeconds() + "s"));
            // Every rank checks all its operations, then holds until released: released together, no rank leaves
            // while another is still inside the last collective (see HOLD).
            long deadline = System.nanoTime() + RUN_LIMIT.toNanos();
            for (LabProcess rank : cluster.ranks()) {
                var end = rank.awaitLine(l -> l.startsWith("done ") || l.startsWith("FAILED ")
                        || l.startsWith("MISMATCH "), Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
                System.out.printf("loss test: %s %s %d ms after launch (seen after %d ms)%n", rank.name(),
                        end.map(l -> l.text().split(" ")[0]).orElse("timed out"),
                        (end.map(LabProcess.Line::nanos).orElse(System.nanoTime()) - launched) / 1_000_000,
                        (System.nanoTime() - launched) / 1_000_000);
                if (end.isEmpty() || !end.get().text().startsWith("done ")) {
                    break;      // failed (asserted below): the others need not be waited for
                }
            }
            long ran = System.nanoTime();
            cluster.ranks().forEach(LabProcess::closeInput);
            int[] codes = cluster.awaitExit(Duration.ofSeconds(30), false);
            delayer.closeInput();
            delayer.awaitExit(Duration.ofSeconds(10));
            String stats = delayer.firstLine(l -> l.startsWith("stats:")).map(LabProcess.Line::text).orElse("none");
            System.out.printf("loss test: seed %d, namespaces %s-*, setup %d ms, collectives %d ms; delayer %s%n",
                    seed, lab.router().replace("-rt", ""), (launched - start) / 1_000_000,
                    (ran - launched) / 1_000_000, stats);
            printSlowest(cluster);

            for (int r = 0; r < WORLD; r++) {
                assertThat(cluster.ranks().get(r).firstLine(l -> l.startsWith("done checked=40 "))).as(
                        "rank %d checked all 40 operations (seed %d)\n%s", r, seed, cluster.output()).isPresent();
            }
            for (int r = 0; r < WORLD; r++) {
                assertThat(codes[r]).as("exit code of rank %d (seed %d; -1: still running)\n%s", r, seed,
                        cluster.output()).isZero();
            }
            // The impairment was real: the delayer saw the traffic and dropped some of it.
            assertThat(stats).as("delayer statistics").containsPattern("seen=\\d{3,}")
                    .doesNotContain("dropped=0 ");
        }
    }

    /** Prints, per operation and size, the slowest rank's time. */
    private static void printSlowest(NetnsCluster cluster) {
        var slowest = new TreeMap<String, Long>();
        for (LabProcess p : cluster.ranks()) {
            for (String line : p.output().lines().toList()) {
                Matcher m = OK.matcher(line);
                if (m.find()) {
                    slowest.merge(String.format("%-14s %8s B", m.group(1), m.group(2)), Long.parseLong(m.group(3)),
                            Math::max);
                }
            }
        }
        slowest.forEach((k, ms) -> System.out.printf("loss test: %s  %6d ms%n", k, ms));
    }
}
