package io.nexar.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.Communicator;
import io.nexar.NexarConfig;
import io.nexar.OperationTimeoutException;
import io.nexar.testkit.TestCluster;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 14 item 3 for point-to-point: a rank blocked in {@code send}, {@code recv} or {@code probe} for longer than
 * {@code hang.report.after} reports what it waits for and what that rank is doing, following the chain of waiting
 * ranks, and its timeout carries the report. Four ranks: rank 0 sends a message that rank 1 never receives (its store
 * of unexpected messages holds one chunk, so the send blocks), rank 1 receives from rank 2, which probes for a message
 * from rank 3, which calls nothing. Run over each transport by a subclass.
 */
@Timeout(120)
public abstract class PointToPointHangContract {
    /** Reports fire after this; the calls time out well after it (their timeout must carry the report). */
    private static final Duration REPORT_AFTER = Duration.ofSeconds(1);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(6);
    /** An answer lists the idle communicators first, then the calls in progress: one line per rank. */
    private static final String RANK_1_RECV = "world rank 1: [^\n]*recv from rank 2 tag 9 on communicator 0 for ";
    private static final String RANK_2_PROBE = "world rank 2: [^\n]*probe from rank 3 tag 4 on communicator 0 for ";

    /** For subclasses, one per transport. */
    protected PointToPointHangContract() {
    }

    /**
     * Starts the cluster the contract runs on.
     *
     * @param worldSize the number of ranks
     * @param config the configuration of every rank
     * @return the started cluster
     */
    protected abstract TestCluster start(int worldSize, NexarConfig config);

    /**
     * The bytes rank 0 sends: enough that the transport cannot take them all while rank 1 receives none.
     *
     * @return the size of the blocked send
     */
    protected long blockedSendBytes() {
        return 64 * 1024;
    }

    @Test
    void shouldReportBlockedSendRecvAndProbeNamingWhatEachAwaitedRankDoes() {
        var config = NexarConfig.builder().ignoreEnvironment().hangReportAfter(REPORT_AFTER).chunkBytes(1024)
                .unexpectedMaxBytes(1024).build();
        var timedOut = new CountDownLatch(3);
        try (var cluster = start(4, config)) {
            Map<Integer, String> results = cluster.onEachRank(world -> {
                world.barrier();
                Communicator c = world.withTimeout(CALL_TIMEOUT);
                long start = System.nanoTime();
                try {
                    switch (world.rank()) {
                        case 0 -> c.send(1, 5, MemorySegment.ofArray(new byte[(int) blockedSendBytes()]));
                        case 1 -> c.recv(2, 9, MemorySegment.ofArray(new byte[8]));
                        case 2 -> c.probe(3, 4);
                        default -> {
                            assertThat(timedOut.await(90, TimeUnit.SECONDS)).isTrue();
                            return "idle";
                        }
                    }
                    return "returned";
                } catch (OperationTimeoutException e) {
                    long ms = (System.nanoTime() - start) / 1_000_000;
                    return "timed out after " + ms + " ms: " + e.getMessage();
                } finally {
                    if (world.rank() < 3) {
                        timedOut.countDown();
                    }
                }
            });
            String idle = "world rank 3: idle on communicator 0 since barrier #0";
            assertThat(results.get(0)).startsWith("timed out after").contains("nexar hang report: world rank 0 of 4 is in"
                    + " send to rank 1 tag 5 on communicator 0 (sent ").contains(" of " + blockedSendBytes() + " bytes)")
                    .containsPattern(RANK_1_RECV)
                    .containsPattern(RANK_2_PROBE).contains(idle);
            assertThat(results.get(1)).startsWith("timed out after").contains("nexar hang report: world rank 1 of 4 is in"
                    + " recv from rank 2 tag 9 on communicator 0")
                    .containsPattern(RANK_2_PROBE).contains(idle);
            assertThat(results.get(2)).startsWith("timed out after").contains("nexar hang report: world rank 2 of 4 is in"
                    + " probe from rank 3 tag 4 on communicator 0").contains(idle);
            for (int rank = 0; rank < 3; rank++) {
                // the report started within hang.report.after + 2 s of the call (its first line says when)
                var first = java.util.regex.Pattern.compile("nexar hang report: [^\n]* for ([0-9.]+) s\n")
                        .matcher(results.get(rank));
                assertThat(first.find()).as("rank %d", rank).isTrue();
                assertThat(Double.parseDouble(first.group(1))).as("rank %d: seconds waited when it reported", rank)
                        .isBetween(REPORT_AFTER.toMillis() / 1000.0, REPORT_AFTER.toMillis() / 1000.0 + 2);
                assertThat(cluster.communicator(rank).diagnostics()).as("rank %d", rank)
                        .contains("last hang report: nexar hang report: world rank " + rank);
            }
        }
    }
}
