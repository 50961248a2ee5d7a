package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.NexarConfig;
import io.nexar.RecoveryPolicy;
import io.nexar.testkit.EndOfJob;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * The end of a job under automatic recovery over QUIC and the TLS bulk lanes (docs/failure-model.md "The end of a
 * job"): every rank closes its communicator as soon as its own last allReduce returns. The first to finish leaves
 * politely while the others are still inside that allReduce; its last chunks may still be being decrypted into place
 * when its leave is reported, and the recovery the leave starts must let the others' last operation finish. With 3
 * ranks and 64 KiB (halving-doubling, rank 2 folded into rank 0), rank 2 waits for rank 0's result while ranks 1 and 0
 * leave; with 5, rank 4 waits for rank 0 while the other four leave. On loopback the leaves are rarely reported
 * before the last operation ends (this test passed 32 jobs on the code before the fix): it guards the QUIC side of
 * the sequence (the leaves, the retirement and its notices, the closes) against hangs and spurious failures; the race
 * itself is pinned down by {@code ChunkClaimTest} and {@code RetirementsTest} in nexar-core and, in process, where it
 * shows in half the runs of the old code, by {@code RecoveryTest} in nexar-testkit.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuicEndOfJobTest {
    private static final int RUNS = 4;

    @org.junit.jupiter.params.ParameterizedTest(name = "{0} ranks")
    @org.junit.jupiter.params.provider.ValueSource(ints = {3, 5})
    void shouldLetEveryRankFinishItsLastAllReduceWhenTheOthersCloseAtOnce(int size) throws Exception {
        var config = NexarConfig.builder().ignoreEnvironment().recoveryPolicy(RecoveryPolicy.AUTOMATIC)
                .collectiveTimeout(Duration.ofSeconds(30)).build();
        for (int run = 0; run < RUNS; run++) {
            try (var cluster = QuicTestCluster.start(size, config, InetAddress.getLoopbackAddress())) {
                Map<Integer, String> results = cluster.onEachRank(c -> EndOfJob.allReducesThenClose(c, 5));

                assertThat(results.values()).as("run %d: %s", run, results).hasSize(size).containsOnly("done");
            }
        }
    }
}
