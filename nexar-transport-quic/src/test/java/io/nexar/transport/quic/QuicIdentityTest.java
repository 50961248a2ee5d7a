package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.ClusterFormationException;
import io.nexar.NexarConfig;
import io.nexar.internal.p2p.Mailbox;
import io.nexar.internal.util.Deadline;
import io.nexar.transport.quic.security.ClusterCa;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Peers with the wrong certificate are refused on both sides, with a {@link ClusterFormationException} that names the
 * rank and the reason. Rank 0 always dials rank 1 (the lower rank dials), so each case is tried with the bad
 * certificate on the dialling side and on the accepting side.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QuicIdentityTest {
    private static final Duration FORMATION = Duration.ofSeconds(2);
    private static final ClusterCa OTHER_CA = ClusterCa.generate();

    /** Issue 16 item 3: excluding a rank revokes its member id, so its certificate fails every later check. */
    @Test
    void shouldRevokeTheIdentityOfAnExcludedRank() throws Exception {
        List<QuicTransport> transports = QuicTestCluster.form(3, NexarConfig.builder().ignoreEnvironment().build(),
                InetAddress.getLoopbackAddress(), QuicTestCluster::credentials, r -> new Mailbox(1 << 20));
        try {
            transports.get(0).exclude(2, "was excluded by the survivors");
            assertThatThrownBy(() -> transports.get(0).verifier().verify(QuicTestCluster.credentials(2).chain()))
                    .isInstanceOf(java.security.cert.CertificateException.class)
                    .hasMessageStartingWith("certificate of member m2 is revoked: rank 2 was excluded by the"
                            + " survivors");
            assertThat(transports.get(0).verifier().verify(QuicTestCluster.credentials(1).chain())).isEqualTo("m1");
        } finally {
            transports.forEach(QuicTransport::close);
        }
    }

    @Test
    void shouldRefuseADiallerWhoseCertificateIsFromAnotherCa() {
        var errors = formPair(r -> r == 0 ? foreign(0) : QuicTestCluster.credentials(r));

        assertThat(errors.get(0)).as("the dialler learns that rank 1 refused its certificate")
                .satisfies(e -> assertThat(e.peer()).hasValue(1))
                .hasMessageStartingWith("formation on rank 0 (world 2, peer 1) failed: rank 1 at 127.0.0.1:")
                .hasMessageContaining("refused the TLS handshake (TLS alert");
        assertThat(errors.get(1)).as("the acceptor names the missing rank and what it refused")
                .satisfies(e -> assertThat(e.peer()).hasValue(0))
                .hasMessageStartingWith("formation on rank 1 (world 2, peer 0) failed: rank 0 was not connected"
                        + " within 2000ms;"
                        + " failed attempts: a connection from 127.0.0.1:")
                .hasMessageContaining("was refused: certificate of member m0 was issued by")
                .hasMessageContaining("not by the cluster CA " + QuicTestCluster.CA.fingerprint());
    }

    @Test
    void shouldRefuseAnAcceptorWhoseCertificateIsFromAnotherCa() {
        var errors = formPair(r -> r == 1 ? foreign(1) : QuicTestCluster.credentials(r));

        assertThat(errors.get(0)).satisfies(e -> assertThat(e.peer()).hasValue(1))
                .hasMessageStartingWith("formation on rank 0 (world 2, peer 1) failed: rank 1 at 127.0.0.1:")
                .hasMessageContaining("presented an unacceptable certificate: certificate of member m1 was issued by")
                .hasMessageContaining("not by the cluster CA");
        assertThat(errors.get(1)).satisfies(e -> assertThat(e.peer()).hasValue(0))
                .hasMessageStartingWith("formation on rank 1 (world 2, peer 0) failed: rank 0 was not connected"
                        + " within 2000ms;"
                        + " failed attempts: a connection from 127.0.0.1:")
                .hasMessageContaining("was closed by that peer, which refused the TLS handshake (TLS alert");
    }

    @Test
    void shouldRefuseADiallerWhoseCertificateNamesAnotherMember() {
        var errors = formPair(r -> r == 0 ? impostor("m7", "m0") : QuicTestCluster.credentials(r));

        assertThat(errors.get(0)).satisfies(e -> assertThat(e.peer()).hasValue(1))
                .hasMessageStartingWith("formation on rank 0 (world 2, peer 1) failed: rank 1 at 127.0.0.1:")
                .hasMessageContaining(" refused the connection: rank 1 refused the connection from 127.0.0.1:")
                .hasMessageEndingWith(": its certificate names member m7, which is not in the peer table");
        assertThat(errors.get(1)).satisfies(e -> assertThat(e.peer()).hasValue(0))
                .hasMessageStartingWith("formation on rank 1 (world 2, peer 0) failed: rank 0 was not connected"
                        + " within 2000ms;"
                        + " failed attempts: a connection from 127.0.0.1:")
                .hasMessageEndingWith(" was refused: its certificate names member m7, which is not in the peer table");
    }

    @Test
    void shouldRefuseAnAcceptorWhoseCertificateNamesAnotherMember() {
        var errors = formPair(r -> r == 1 ? impostor("m7", "m1") : QuicTestCluster.credentials(r));

        String refusal = "peer presented the certificate of member m7, expected member m1";
        assertThat(errors.get(0)).satisfies(e -> assertThat(e.peer()).hasValue(1))
                .hasMessageStartingWith("formation on rank 0 (world 2, peer 1) failed: rank 1 at 127.0.0.1:")
                .hasMessageEndingWith("presented an unacceptable certificate: " + refusal);
        assertThat(errors.get(1)).satisfies(e -> assertThat(e.peer()).hasValue(0))
                .hasMessageStartingWith("formation on rank 1 (world 2, peer 0) failed: rank 0 was not connected"
                        + " within 2000ms;"
                        + " failed attempts: a connection from 127.0.0.1:")
                .hasMessageContaining("was closed by that peer, which refused the TLS handshake (TLS alert");
    }

    /** Credentials of {@code m<rank>} issued by a CA the cluster does not trust (but trusting the cluster's CA). */
    private static MemberCredentials foreign(int rank) {
        MemberCredentials c = OTHER_CA.issueSelf("m" + rank);
        return new MemberCredentials(c.privateKey(), c.chain(), QuicTestCluster.CA.certificate(), c.memberId());
    }

    /** A genuine cluster certificate naming {@code certified}, held by a member that thinks it is {@code claimed}. */
    private static MemberCredentials impostor(String certified, String claimed) {
        MemberCredentials c = QuicTestCluster.CA.issueSelf(certified);
        return new MemberCredentials(c.privateKey(), c.chain(), c.clusterCa(), claimed);
    }

    /** Forms a two-rank cluster on 127.0.0.1 and returns each rank's formation error (both must fail). */
    private static AtomicReferenceArray<ClusterFormationException> formPair(IntFunction<MemberCredentials> creds) {
        var config = NexarConfig.builder().ignoreEnvironment().build();
        var transports = new ArrayList<QuicTransport>();
        var peers = new ArrayList<PeerInfo>();
        for (int r = 0; r < 2; r++) {
            var t = new QuicTransport(r, 2, creds.apply(r), config,
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), new Mailbox(1 << 20));
            transports.add(t);
            peers.add(new PeerInfo(r, "m" + r, t.bind(), null));
        }
        var errors = new AtomicReferenceArray<ClusterFormationException>(2);
        var threads = new ArrayList<Thread>();
        Deadline deadline = Deadline.after(FORMATION);
        try {
            for (int r = 0; r < 2; r++) {
                final int rank = r;
                threads.add(Thread.ofVirtual().start(() -> {
                    try {
                        transports.get(rank).connect(List.copyOf(peers), deadline);
                    } catch (ClusterFormationException e) {
                        errors.set(rank, e);
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        } finally {
            transports.forEach(QuicTransport::close);
        }
        System.out.println("rank 0: " + errors.get(0).getMessage() + "\nrank 1: " + errors.get(1).getMessage());
        return errors;
    }
}
