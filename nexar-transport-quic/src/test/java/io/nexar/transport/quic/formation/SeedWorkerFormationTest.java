package io.nexar.transport.quic.formation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.ClusterFormationException;
import io.nexar.internal.protocol.JoinRefusal;
import io.nexar.transport.quic.MemberIdentity;
import io.nexar.transport.quic.PeerInfo;
import io.nexar.transport.quic.security.ClusterCa;
import io.nexar.transport.quic.security.JoinString;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Seed and workers forming clusters over loopback TCP + TLS 1.3, and the ways formation ends without a cluster. */
@Timeout(30)
class SeedWorkerFormationTest {

    static final ClusterCa CA = ClusterCa.generate();

    static SeedServer seed(int worldSize, String bind, Duration deadline) throws IOException {
        return SeedServer.start(SeedOptions.builder(worldSize).bind(bind).ca(CA).formationDeadline(deadline).build());
    }

    @Test
    void shouldFormFourWorkersOnIpv4Loopback() throws Exception {
        formFour("127.0.0.1:0", "127.0.0.1");
    }

    @Test
    void shouldFormFourWorkersOnIpv6Loopback() throws Exception {
        try (var probe = new ServerSocket(0, 1, InetAddress.getByName("::1"))) {
            Assumptions.assumeTrue(probe.isBound(), "no IPv6 loopback");
        } catch (IOException e) {
            Assumptions.abort("this machine has no IPv6 loopback: " + e);
        }
        formFour("[::1]:0", "::1");
    }

    private void formFour(String bind, String host) throws Exception {
        long randomSeed = new Random().nextLong();
        System.out.println("formFour(" + bind + ") random seed=" + randomSeed);
        var random = new Random(randomSeed);
        int requester = random.nextInt(4);
        int requestedRank = random.nextInt(4);
        try (var seed = seed(4, bind, Duration.ofSeconds(20))) {
            assertThat(JoinString.parse(seed.joinString()).port()).isEqualTo(seed.boundAddress().getPort());
            assertThat(seed.joinString()).contains("ca=" + CA.fingerprint());
            var workers = new ArrayList<CompletableFuture<Enrolment>>();
            for (int i = 0; i < 4; i++) {
                workers.add(Workers.start(seed.joinString(), i == requester ? requestedRank : -1, host, 7000 + 10 * i));
            }
            List<Enrolment> enrolments = Workers.all(workers);
            List<PeerInfo> table = seed.awaitFormed(Duration.ofSeconds(5));

            assertThat(enrolments).extracting(Enrolment::rank).containsExactlyInAnyOrder(0, 1, 2, 3);
            assertThat(enrolments.get(requester).rank()).as("requested rank honoured").isEqualTo(requestedRank);
            assertThat(table).extracting(PeerInfo::rank).containsExactly(0, 1, 2, 3);
            assertThat(table).extracting(PeerInfo::memberId).doesNotHaveDuplicates()
                    .allMatch(id -> id.matches("[0-9a-f]{32}"));
            for (int i = 0; i < 4; i++) {
                Enrolment e = enrolments.get(i);
                assertThat(e.worldSize()).isEqualTo(4);
                assertThat(e.peers()).as("peer table of rank " + e.rank()).isEqualTo(table);
                PeerInfo self = table.get(e.rank());
                assertThat(self.quicAddress()).isEqualTo(new InetSocketAddress(host, 7000 + 10 * i));
                assertThat(self.bulkAddress()).isEqualTo(new InetSocketAddress(host, 7001 + 10 * i));
                assertThat(e.credentials().memberId()).isEqualTo(self.memberId());
                assertThat(MemberIdentity.of(e.credentials().leaf())).contains(self.memberId());
                assertThat(e.credentials().clusterCa()).isEqualTo(CA.certificate());
                assertThat(CA.verify(e.credentials().chain())).isEqualTo(self.memberId());
                assertThat(e.credentials().leaf().getPublicKey().getAlgorithm()).isEqualTo("EC");
            }
            assertThat(seed.refusals()).isEmpty();
        }
    }

    @Test
    void deadlineRefusesWaitingWorkersOnBothSides() throws Exception {
        try (var seed = seed(4, "127.0.0.1:0", Duration.ofMillis(1500))) {
            var a = Workers.start(seed.joinString(), -1, "127.0.0.1", 7100);
            var b = Workers.start(seed.joinString(), -1, "127.0.0.1", 7110);
            assertThat(Workers.failure(a)).isInstanceOf(ClusterFormationException.class)
                    .hasMessageContaining("refused the join: formation deadline passed: 2 of 4 workers joined");
            assertThat(Workers.failure(b)).hasMessageContaining("formation deadline passed: 2 of 4 workers joined");
            assertThatThrownBy(() -> seed.awaitFormed(Duration.ofSeconds(5)))
                    .isInstanceOf(ClusterFormationException.class)
                    .hasMessage("formation failed at the seed: formation deadline passed: 2 of 4 workers joined");
        }
    }

    @Test
    void joinsAfterFormationAreRefused() throws Exception {
        try (var seed = seed(1, "127.0.0.1:0", Duration.ofSeconds(20))) {
            Enrolment first = Workers.start(seed.joinString(), 0, "127.0.0.1", 7200).get();
            assertThat(first.rank()).isZero();
            assertThat(Workers.failure(Workers.start(seed.joinString(), -1, "127.0.0.1", 7210)))
                    .isInstanceOf(ClusterFormationException.class)
                    .hasMessageContaining("refused the join: cluster already formed");
            assertThat(seed.refusals()).extracting(SeedServer.Refusal::code).containsExactly(JoinRefusal.CLUSTER_FORMED);
        }
    }

    @Test
    void requestedRanksOutOfRangeOrTakenAreRefused() throws Exception {
        try (var seed = seed(2, "127.0.0.1:0", Duration.ofSeconds(20))) {
            assertThat(Workers.failure(Workers.start(seed.joinString(), 2, "127.0.0.1", 7300)))
                    .hasMessageContaining("requested rank 2 is not in [0, 2)");
            var holder = Workers.start(seed.joinString(), 1, "127.0.0.1", 7310);
            awaitJoined(seed, 1);
            assertThat(Workers.failure(Workers.start(seed.joinString(), 1, "127.0.0.1", 7320)))
                    .hasMessageContaining("requested rank 1 is already taken");
            Enrolment other = Workers.start(seed.joinString(), -1, "127.0.0.1", 7330).get();
            assertThat(other.rank()).isZero();
            assertThat(holder.get().rank()).isEqualTo(1);
        }
    }

    @Test
    void aWorkerRetriesUntilTheSeedIsUp() throws Exception {
        int port;
        try (var reserve = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = reserve.getLocalPort();
        }
        var token = io.nexar.transport.quic.security.JoinToken.generate();
        String js = new JoinString("127.0.0.1", port, token, CA.fingerprint()).format();
        var worker = Workers.start(js, -1, "127.0.0.1", 7400); // nothing listens yet: connection refused, retry
        try (var seed = SeedServer.start(SeedOptions.builder(1).bind("127.0.0.1:" + port).ca(CA).token(token)
                .build())) {
            assertThat(worker.get().rank()).isZero();
            assertThat(seed.awaitFormed(Duration.ofSeconds(5))).hasSize(1);
        }
    }

    @Test
    void anUnreachableSeedFailsAtTheDeadlineAfterRetries() throws Exception {
        int port;
        try (var reserve = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = reserve.getLocalPort();
        }
        String js = new JoinString("127.0.0.1", port, io.nexar.transport.quic.security.JoinToken.generate(),
                CA.fingerprint()).format();
        assertThatThrownBy(() -> WorkerEnrolment.join(js, -1, new InetSocketAddress("127.0.0.1", 7500), null,
                Duration.ofMillis(800)))
                .isInstanceOf(ClusterFormationException.class)
                .hasMessageMatching("join failed: seed at 127\\.0\\.0\\.1:" + port
                        + " unreachable after [2-9]\\d* attempts within 800ms: .*");
    }

    @Test
    void closeRefusesWaitingWorkersAndIsIdempotent() throws Exception {
        var seed = seed(3, "127.0.0.1:0", Duration.ofSeconds(20));
        var waiting = Workers.start(seed.joinString(), -1, "127.0.0.1", 7600);
        awaitJoined(seed, 1);
        seed.close();
        seed.close();
        assertThat(Workers.failure(waiting)).hasMessageContaining("refused the join: seed is shutting down: 1 of 3");
        assertThatThrownBy(() -> seed.awaitFormed(Duration.ofSeconds(1))).isInstanceOf(ClusterFormationException.class)
                .hasMessageContaining("seed is shutting down");
    }

    @Test
    void aWildcardSeedPrintsARoutableHostAndAWildcardWorkerAddressIsReplaced() throws Exception {
        try (var seed = SeedServer.start(SeedOptions.builder(1).bind("0.0.0.0:0").ca(CA).build())) {
            String host = JoinString.parse(seed.joinString()).host();
            assertThat(InetAddress.getByName(host).isAnyLocalAddress()).isFalse();
            String local = new JoinString("127.0.0.1", seed.boundAddress().getPort(),
                    JoinString.parse(seed.joinString()).token(), CA.fingerprint()).format();
            Enrolment e = WorkerEnrolment.join(local, -1, new InetSocketAddress("0.0.0.0", 7700), null,
                    Duration.ofSeconds(10));
            assertThat(e.peers().getFirst().quicAddress()).isEqualTo(new InetSocketAddress("127.0.0.1", 7700));
            assertThat(e.peers().getFirst().bulkAddress()).isNull();
        }
    }

    /** Waits until the seed has admitted {@code n} workers: a condition polled under a deadline (Aeron's await). */
    static void awaitJoined(SeedServer seed, int n) {
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (seed.joined() < n) {
            if (System.nanoTime() > end) {
                throw new AssertionError("the seed admitted " + seed.joined() + " workers, expected " + n);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
    }
}
