package io.nexar.transport.quic.formation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.ClusterFormationException;
import io.nexar.internal.protocol.EnrolmentMessage.JoinAccepted;
import io.nexar.internal.protocol.EnrolmentMessage.JoinChallenge;
import io.nexar.internal.protocol.EnrolmentMessage.JoinRefused;
import io.nexar.internal.protocol.EnrolmentMessage.JoinRequest;
import io.nexar.internal.protocol.EnrolmentMessage.PeerTable;
import io.nexar.internal.protocol.JoinRefusal;
import io.nexar.internal.protocol.Message;
import io.nexar.transport.quic.security.ClusterCa;
import io.nexar.transport.quic.security.JoinString;
import io.nexar.transport.quic.security.JoinToken;
import io.nexar.transport.quic.security.MemberKeys;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The security tests of issue 3: wrong token, wrong CA fingerprint, forged CSR, replayed join, oversized length
 * prefix. Each is refused with a clear error on both sides while the good workers still form the cluster.
 */
@Timeout(30)
class EnrolmentSecurityTest {

    static final ClusterCa CA = ClusterCa.generate();
    static final InetSocketAddress QUIC = new InetSocketAddress("127.0.0.1", 9000);

    static SeedServer seed(int worldSize) throws IOException {
        return SeedServer.start(SeedOptions.builder(worldSize).bind("127.0.0.1:0").ca(CA)
                .formationDeadline(Duration.ofSeconds(25)).ioTimeout(Duration.ofSeconds(10)).build());
    }

    @Test
    void aWrongTokenIsRefusedOnBothSidesAndTheGoodWorkersStillForm() throws Exception {
        try (var seed = seed(2)) {
            JoinString good = JoinString.parse(seed.joinString());
            String bad = new JoinString(good.host(), good.port(), JoinToken.generate(), good.caFingerprint()).format();
            assertThat(Workers.failure(Workers.start(bad, -1, "127.0.0.1", 8000)))
                    .isInstanceOf(ClusterFormationException.class)
                    .hasMessageStartingWith("join failed: seed at 127.0.0.1:" + good.port() + " refused the join: "
                            + "join token proof does not verify");
            assertThat(seed.refusals()).singleElement().satisfies(r -> {
                assertThat(r.code()).isEqualTo(JoinRefusal.BAD_TOKEN);
                assertThat(r.reason()).contains("join token proof does not verify");
            });
            var enrolments = Workers.all(List.of(Workers.start(seed.joinString(), -1, "127.0.0.1", 8010),
                    Workers.start(seed.joinString(), -1, "127.0.0.1", 8020)));
            assertThat(enrolments).extracting(Enrolment::rank).containsExactlyInAnyOrder(0, 1);
        }
    }

    @Test
    void aWrongCaFingerprintIsRefusedByTheWorker() throws Exception {
        try (var seed = seed(1)) {
            JoinString good = JoinString.parse(seed.joinString());
            String pinned = ClusterCa.generate().fingerprint();
            String bad = new JoinString(good.host(), good.port(), good.token(), pinned).format();
            assertThat(Workers.failure(Workers.start(bad, -1, "127.0.0.1", 8100)))
                    .isInstanceOf(ClusterFormationException.class)
                    .hasMessage("join failed: seed at 127.0.0.1:" + good.port() + " presented CA "
                            + CA.fingerprint() + " but the join string pins " + pinned);
            assertThat(seed.joined()).isZero();
            assertThat(Workers.start(seed.joinString(), -1, "127.0.0.1", 8110).get().rank()).isZero();
        }
    }

    @Test
    void aCsrSignedByAnotherKeyIsRefused() throws Exception {
        try (var seed = seed(1); var client = RawEnrolmentClient.connect(seed.joinString())) {
            MemberKeys claimed = MemberKeys.generate();
            MemberKeys signer = MemberKeys.generate();
            byte[] forged = new JcaPKCS10CertificationRequestBuilder(new X500Principal("CN=forged"),
                    claimed.publicKey()).build(new JcaContentSignerBuilder("SHA256withECDSA")
                    .build(signer.privateKey())).getEncoded();
            JoinToken token = JoinString.parse(seed.joinString()).token();
            JoinChallenge challenge = client.challenge();
            client.send(new JoinRequest(token.proof(challenge.nonce(), forged), -1, forged, QUIC, null));
            Message answer = client.read();
            assertThat(answer).isInstanceOfSatisfying(JoinRefused.class, r -> {
                assertThat(r.code()).isEqualTo(JoinRefusal.BAD_CSR);
                assertThat(r.reason()).contains("CSR signature does not verify");
            });
            assertThat(seed.refusals()).extracting(SeedServer.Refusal::code).containsExactly(JoinRefusal.BAD_CSR);
            assertThat(Workers.start(seed.joinString(), -1, "127.0.0.1", 8210).get().rank()).isZero();
        }
    }

    @Test
    void aReplayedJoinRequestIsRefusedAndAKeyCannotEnrolTwice() throws Exception {
        try (var seed = seed(2)) {
            JoinToken token = JoinString.parse(seed.joinString()).token();
            MemberKeys keys = MemberKeys.generate();
            byte[] csr = keys.csr();
            try (var honest = RawEnrolmentClient.connect(seed.joinString())) {
                JoinRequest captured = new JoinRequest(token.proof(honest.challenge().nonce(), csr), -1, csr, QUIC,
                        null);
                honest.send(captured);
                SeedWorkerFormationTest.awaitJoined(seed, 1);

                // An eavesdropper replays the captured request on a new connection: the nonce differs.
                try (var replay = RawEnrolmentClient.connect(seed.joinString())) {
                    replay.challenge();
                    replay.send(captured);
                    assertThat(replay.read()).isInstanceOfSatisfying(JoinRefused.class,
                            r -> assertThat(r.code()).isEqualTo(JoinRefusal.BAD_TOKEN));
                }
                // Even with a fresh valid proof, the same public key cannot enrol a second time.
                try (var again = RawEnrolmentClient.connect(seed.joinString())) {
                    byte[] proof = token.proof(again.challenge().nonce(), csr);
                    again.send(new JoinRequest(proof, -1, csr, QUIC, null));
                    assertThat(again.read()).isInstanceOfSatisfying(JoinRefused.class, r -> {
                        assertThat(r.code()).isEqualTo(JoinRefusal.KEY_ALREADY_ENROLLED);
                        assertThat(r.reason()).startsWith("key already enrolled");
                    });
                }
                Enrolment other = Workers.start(seed.joinString(), -1, "127.0.0.1", 8310).get();
                assertThat(other.rank()).isEqualTo(1);
                assertThat(honest.read()).isInstanceOfSatisfying(JoinAccepted.class,
                        a -> assertThat(a.rank()).isZero());
                assertThat(honest.read()).isInstanceOf(PeerTable.class);
            }
            assertThat(seed.refusals()).extracting(SeedServer.Refusal::code)
                    .containsExactly(JoinRefusal.BAD_TOKEN, JoinRefusal.KEY_ALREADY_ENROLLED);
        }
    }

    @Test
    void anOversizedLengthPrefixIsRefusedWithoutAllocatingAndTheSeedKeepsWorking() throws Exception {
        try (var seed = seed(1)) {
            try (var client = RawEnrolmentClient.connect(seed.joinString())) {
                client.challenge();
                // 4 GiB - 1 claimed: the seed must refuse on the prefix alone, before reserving memory for it.
                client.sendRaw(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x41, 0x00});
                assertThat(client.read()).isInstanceOfSatisfying(JoinRefused.class, r -> {
                    assertThat(r.code()).isEqualTo(JoinRefusal.PROTOCOL_ERROR);
                    assertThat(r.reason()).contains("frame of 4294967295 bytes from an unidentified peer exceeds the"
                            + " maximum of 65536 bytes");
                });
            }
            assertThat(seed.refusals()).extracting(SeedServer.Refusal::code)
                    .containsExactly(JoinRefusal.PROTOCOL_ERROR);
            assertThat(Workers.start(seed.joinString(), -1, "127.0.0.1", 8410).get().rank()).isZero();
        }
    }

    @Test
    void somethingOtherThanAJoinRequestIsRefused() throws Exception {
        try (var seed = seed(1); var client = RawEnrolmentClient.connect(seed.joinString())) {
            client.challenge();
            client.send(new JoinChallenge(new byte[32]));
            assertThat(client.read()).isInstanceOfSatisfying(JoinRefused.class,
                    r -> assertThat(r.reason()).isEqualTo("expected JOIN_REQUEST, got JOIN_CHALLENGE"));
        }
    }

    @Test
    void aSilentClientIsDroppedAfterTheIoTimeout() throws Exception {
        try (var seed = SeedServer.start(SeedOptions.builder(1).bind("127.0.0.1:0").ca(CA)
                .ioTimeout(Duration.ofMillis(300)).build());
             var client = RawEnrolmentClient.connect(seed.joinString())) {
            client.challenge();
            assertThatThrownBy(client::read).isInstanceOf(IOException.class); // closed by the seed
            awaitRefusals(seed, 1);
            assertThat(seed.refusals()).singleElement()
                    .satisfies(r -> assertThat(r.reason()).isEqualTo("no join request within 300ms"));
        }
    }

    /** Waits, under a deadline, until the seed has recorded {@code n} refusals. */
    static void awaitRefusals(SeedServer seed, int n) {
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (seed.refusals().size() < n) {
            if (System.nanoTime() > end) {
                throw new AssertionError("the seed recorded " + seed.refusals() + ", expected " + n + " refusals");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
    }
}
