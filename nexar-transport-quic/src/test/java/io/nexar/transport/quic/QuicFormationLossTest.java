package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.ClusterFormationException;
import io.nexar.NexarConfig;
import io.nexar.internal.util.Deadline;
import io.nexar.transport.quic.bulk.BulkLaneOptions;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A rank that dies while the others are still connecting to each other (issue 16): a rank that had reached it sees it
 * fail and fails its formation; that rank's other peers see it go and fail theirs, instead of waiting for the
 * formation deadline for the dead rank that they never reached.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class QuicFormationLossTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final Duration HEARTBEAT_TIMEOUT = Duration.ofMillis(1500);
    /** Far beyond what the test waits: a failure before it comes from the lost peer. */
    private static final Duration FORMATION_DEADLINE = Duration.ofSeconds(60);

    @Test
    void shouldFailFormationOnEveryRankWhenARankDiesWhileTheOthersStillConnect() throws Exception {
        var config = NexarConfig.builder().ignoreEnvironment().heartbeat(Duration.ofMillis(500), HEARTBEAT_TIMEOUT)
                .build();
        var transports = new ArrayList<QuicTransport>();
        var handlers = new ArrayList<QuicTransportTest.RecordingHandler>();
        var peers = new ArrayList<PeerInfo>();
        for (int r = 0; r < 3; r++) {
            handlers.add(new QuicTransportTest.RecordingHandler(1 << 20));
            var t = new QuicTransport(r, 3, QuicTestCluster.credentials(r), config, new InetSocketAddress(LOOPBACK, 0),
                    handlers.get(r), BulkLaneOptions.off());
            transports.add(t);
            peers.add(new PeerInfo(r, "m" + r, t.bind(), null));
        }
        var release = new CountDownLatch(1);
        Deadline deadline = Deadline.after(FORMATION_DEADLINE);
        try {
            var formed0 = connect(transports.get(0), peers, deadline);
            connect(transports.get(2), peers, deadline);
            transports.get(0).link(2).ready().get(30, TimeUnit.SECONDS); // rank 0 reached rank 2

            QuicFaults.playDead(transports.get(2), release); // rank 2 dies before rank 1 even starts
            long diedAt = System.nanoTime();
            var formed1 = connect(transports.get(1), peers, deadline);

            // Rank 0 has every link ready (rank 2's before it died) and may finish its formation; either way it
            // learns of rank 2's death within the heartbeat timeout, and its program gives up (policy abort).
            Throwable f0 = formed0.get(30, TimeUnit.SECONDS);
            if (f0 == null) {
                var down = handlers.get(0).downs.poll(30, TimeUnit.SECONDS);
                assertThat(down).as("rank 0 hears of rank 2's death").isNotNull();
                assertThat(down.peer()).isEqualTo(2);
            }
            System.out.println("rank 0 gave up after " + (System.nanoTime() - diedAt) / 1_000_000 + " ms"
                    + (f0 == null ? " (formed, then rank 2 reported down)" : ": " + f0));
            transports.get(0).failAfter("rank 2 failed during formation"); // its program exits

            Throwable f1 = formed1.get(30, TimeUnit.SECONDS);
            long ms = (System.nanoTime() - diedAt) / 1_000_000;
            System.out.println("rank 1's formation failed after " + ms + " ms: " + f1);
            assertThat(f1).isInstanceOf(ClusterFormationException.class);
            assertThat(ms).as("heartbeat timeout 1.5 s + margins, far below the 60 s deadline").isLessThan(15_000);
        } finally {
            release.countDown();
            transports.forEach(QuicTransport::close);
        }
    }

    /**
     * A rank that got the peer table and stopped before anyone reached it (here rank 0, which nobody dials: it dials
     * the others) has no link that could be lost; the others give up within the heartbeat timeout after their last
     * link became ready, naming it, instead of waiting for the 60 s formation deadline.
     */
    @Test
    void shouldFailFormationWithinTheHeartbeatTimeoutWhenARankStopsAfterThePeerTableBeforeAnyoneReachedIt()
            throws Exception {
        var config = NexarConfig.builder().ignoreEnvironment().heartbeat(Duration.ofMillis(500), HEARTBEAT_TIMEOUT)
                .build();
        var transports = new ArrayList<QuicTransport>();
        var peers = new ArrayList<PeerInfo>();
        for (int r = 0; r < 3; r++) {
            var t = new QuicTransport(r, 3, QuicTestCluster.credentials(r), config, new InetSocketAddress(LOOPBACK, 0),
                    new QuicTransportTest.RecordingHandler(1 << 20), BulkLaneOptions.off());
            transports.add(t);
            peers.add(new PeerInfo(r, "m" + r, t.bind(), null));
        }
        var release = new CountDownLatch(1);
        try {
            QuicFaults.playDead(transports.get(0), release); // enrolled, then frozen: its socket is there, nobody answers
            ranksOneAndTwoFailQuicklyNamingRankZero(transports, peers, "rank 0 was not reached",
                    "within heartbeat.timeout (1.5s)");
            assertThat(transports.get(1).link(2).ready()).as("the living pair did connect").isCompleted();
        } finally {
            release.countDown();
            transports.forEach(QuicTransport::close);
        }
    }

    /**
     * A rank that got the peer table and is starved of CPU (here: its event loops blocked) is slow, not gone: its
     * bulk-lane listener is still held by its process, so the others wait for it past the heartbeat timeout (up to the
     * formation deadline), and formation succeeds once it runs again (issue 16: a kill trial on a loaded machine
     * failed at formation so).
     */
    @Test
    void shouldWaitPastTheHeartbeatTimeoutForAStarvedRankWhoseProcessIsThere() throws Exception {
        var transports = withBulkLanes();
        var peers = peersOf(transports);
        var release = new CountDownLatch(1);
        try {
            QuicFaults.playDead(transports.get(0), release); // starved: nothing runs on its event loops
            Deadline deadline = Deadline.after(FORMATION_DEADLINE);
            var formed1 = connect(transports.get(1), peers, deadline);
            var formed2 = connect(transports.get(2), peers, deadline);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while ((transports.get(1).slowPeerWaits.get() == 0 || transports.get(2).slowPeerWaits.get() == 0)
                    && System.nanoTime() < until && !formed1.isDone() && !formed2.isDone()) {
                Thread.onSpinWait(); // the event: both ranks found rank 0's process there after the window
            }
            assertThat(formed1).as("rank 1 still waits for rank 0 after the heartbeat timeout").isNotDone();
            assertThat(formed2).as("rank 2 too").isNotDone();
            release.countDown(); // rank 0 gets the CPU again
            var formed0 = connect(transports.get(0), peers, deadline);
            for (var formed : List.of(formed0, formed1, formed2)) {
                assertThat(formed.get(30, TimeUnit.SECONDS)).as("formed").isNull();
            }
            assertThat(transports.get(1).link(0).ready()).isCompleted();
        } finally {
            release.countDown();
            transports.forEach(QuicTransport::close);
        }
    }

    /**
     * A rank whose process is gone after the peer table (its sockets closed, as the kernel closes a killed process's)
     * is still given up within the heartbeat timeout: its bulk-lane port refuses the probe.
     */
    @Test
    void shouldFailFormationWithinTheHeartbeatTimeoutWhenTheProcessOfARankIsGone() throws Exception {
        var transports = withBulkLanes();
        var peers = peersOf(transports);
        try {
            transports.get(0).close(); // enrolled, then gone: its ports are free
            ranksOneAndTwoFailQuicklyNamingRankZero(transports, peers,
                    "rank 0 was not reached within heartbeat.timeout (1.5s)", "refuses connections: its process is gone");
        } finally {
            transports.forEach(QuicTransport::close);
        }
    }

    /**
     * Ranks 1 and 2 form with {@code peers} and both fail with a {@link ClusterFormationException} whose message holds
     * {@code says}, within the heartbeat timeout plus margins (far below the formation deadline).
     */
    private static void ranksOneAndTwoFailQuicklyNamingRankZero(List<QuicTransport> transports, List<PeerInfo> peers,
                                                                String... says) throws Exception {
        long start = System.nanoTime();
        Deadline deadline = Deadline.after(FORMATION_DEADLINE);
        var formed1 = connect(transports.get(1), peers, deadline);
        var formed2 = connect(transports.get(2), peers, deadline);
        for (var formed : List.of(formed1, formed2)) {
            Throwable f = formed.get(40, TimeUnit.SECONDS);
            long ms = (System.nanoTime() - start) / 1_000_000;
            System.out.println("formation failed after " + ms + " ms: " + f);
            var failure = assertThat(f).isInstanceOf(ClusterFormationException.class);
            for (String text : says) {
                failure.hasMessageContaining(text);
            }
            assertThat(ms).as("heartbeat timeout 1.5 s + margins, far below the 60 s deadline").isLessThan(15_000);
        }
    }

    /** Three bound transports with plain-TCP bulk lanes, heartbeat timeout 1.5 s. */
    private static List<QuicTransport> withBulkLanes() {
        var config = NexarConfig.builder().ignoreEnvironment().heartbeat(Duration.ofMillis(500), HEARTBEAT_TIMEOUT)
                .build();
        var transports = new ArrayList<QuicTransport>();
        for (int r = 0; r < 3; r++) {
            transports.add(new QuicTransport(r, 3, QuicTestCluster.credentials(r), config,
                    new InetSocketAddress(LOOPBACK, 0), new QuicTransportTest.RecordingHandler(1 << 20),
                    new BulkLaneOptions(BulkLaneOptions.Mode.TCP_PLAIN, 0)));
        }
        return transports;
    }

    /** Binds each transport and returns the peer table's entries, bulk-lane addresses included. */
    private static List<PeerInfo> peersOf(List<QuicTransport> transports) {
        var peers = new ArrayList<PeerInfo>();
        for (int r = 0; r < transports.size(); r++) {
            QuicTransport t = transports.get(r);
            peers.add(new PeerInfo(r, "m" + r, t.bind(), t.bulkAddress()));
        }
        return peers;
    }

    /** Starts {@code t.connect} on a thread of its own: completes with its failure, or with null if it formed. */
    private static CompletableFuture<Throwable> connect(QuicTransport t, List<PeerInfo> peers, Deadline deadline) {
        var result = new CompletableFuture<Throwable>();
        Thread.ofVirtual().start(() -> {
            try {
                t.connect(peers, deadline);
                result.complete(null);
            } catch (Throwable e) {
                result.complete(e);
            }
        });
        return result;
    }
}
