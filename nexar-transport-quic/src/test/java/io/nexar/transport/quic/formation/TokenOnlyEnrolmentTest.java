package io.nexar.transport.quic.formation;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.ClusterFormationException;
import io.nexar.internal.protocol.EnrolmentCodec;
import io.nexar.internal.protocol.EnrolmentMessage.JoinChallenge;
import io.nexar.internal.protocol.EnrolmentMessage.JoinRequest;
import io.nexar.internal.protocol.EnrolmentMessage.SeedProof;
import io.nexar.internal.protocol.JoinRefusal;
import io.nexar.internal.protocol.Message;
import io.nexar.transport.quic.security.ClusterCa;
import io.nexar.transport.quic.security.JoinString;
import io.nexar.transport.quic.security.JoinToken;
import io.nexar.transport.quic.security.PinnedCaTrustManager;
import io.nexar.transport.quic.security.TlsMaterial;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Token-only enrolment (issue 17): workers without a CA fingerprint authenticate the seed by its proof of the token,
 * bound to the TLS session. A wrong token is refused in either direction, and a man in the middle that relays the
 * messages between two TLS sessions of its own gets nothing: its sessions' exporter values differ, so the relayed
 * proof verifies at neither end.
 */
@Timeout(30)
class TokenOnlyEnrolmentTest {

    static final ClusterCa CA = ClusterCa.generate();

    static SeedServer seed(int worldSize, JoinToken token) throws IOException {
        return SeedServer.start(SeedOptions.builder(worldSize).bind("127.0.0.1:0").ca(CA).token(token)
                .formationDeadline(Duration.ofSeconds(25)).build());
    }

    static String tokenOnly(int port, JoinToken token) {
        return JoinString.tokenOnly("127.0.0.1", port, token).format();
    }

    @Test
    void shouldFormWithTokenOnlyWorkersAndPinTheCaTheSeedProved() throws Exception {
        JoinToken token = JoinToken.generate();
        try (var seed = seed(2, token)) {
            String js = tokenOnly(seed.boundAddress().getPort(), token);
            assertThat(js).endsWith("&auth=token");
            var enrolments = Workers.all(List.of(Workers.start(js, 1, "127.0.0.1", 8200),
                    Workers.start(js, -1, "127.0.0.1", 8210)));
            assertThat(enrolments).extracting(Enrolment::rank).containsExactly(1, 0);
            assertThat(enrolments).allSatisfy(e -> assertThat(ClusterCa.fingerprint(e.credentials().clusterCa()))
                    .isEqualTo(CA.fingerprint()));
            assertThat(seed.refusals()).isEmpty();
        }
    }

    @Test
    void shouldRefuseAWorkerWithAnotherTokenAtTheSeedNamingTheToken() throws Exception {
        try (var seed = seed(1, JoinToken.generate())) {
            int port = seed.boundAddress().getPort();
            assertThat(Workers.failure(Workers.start(tokenOnly(port, JoinToken.generate()), -1, "127.0.0.1", 8300)))
                    .isInstanceOf(ClusterFormationException.class)
                    .hasMessage("join failed: seed at 127.0.0.1:" + port + " refused the join: join token proof does"
                            + " not verify: wrong token, or a proof made for another connection or CSR (BAD_TOKEN):"
                            + " this worker's join token (NEXAR_TOKEN) differs from the seed's");
            assertThat(seed.refusals()).singleElement().extracting(SeedServer.Refusal::code)
                    .isEqualTo(JoinRefusal.BAD_TOKEN);
            assertThat(seed.joined()).isZero();
        }
    }

    @Test
    void shouldRefuseAFakeSeedThatDoesNotKnowTheToken() throws Exception {
        JoinToken token = JoinToken.generate();
        var fakeToken = JoinToken.generate();
        try (var fake = new FakeSeed()) {
            var requests = new CompletableFuture<JoinRequest>();
            fake.serve(socket -> {
                byte[] nonce = new byte[EnrolmentCodec.NONCE_BYTES];
                FrameIo.write(socket.getOutputStream(), new JoinChallenge(nonce));
                var request = (JoinRequest) FrameIo.read(socket.getInputStream(), -1, 1 << 16);
                requests.complete(request);
                byte[] exporter = JoinToken.exporter(socket.getSession());
                FrameIo.write(socket.getOutputStream(), new SeedProof(fakeToken.seedProof(exporter, nonce,
                        request.csr(), fake.ca.certificate().getEncoded())));
                FrameIo.read(socket.getInputStream(), -1, 1 << 16); // until the worker hangs up
            });
            assertThat(Workers.failure(Workers.start(tokenOnly(fake.port(), token), -1, "127.0.0.1", 8400)))
                    .isInstanceOf(ClusterFormationException.class)
                    .hasMessage("join failed: seed at 127.0.0.1:" + fake.port() + " did not prove that it knows the"
                            + " join token (NEXAR_TOKEN): the seed has another token, or something between this"
                            + " worker and the seed answered in its place; its CA " + fake.ca.fingerprint()
                            + " is not trusted");
            // what the fake seed learnt: a proof it cannot check or reuse without the token
            assertThat(requests.get(5, TimeUnit.SECONDS).proof()).hasSize(32);
        }
    }

    @Test
    void shouldGiveAManInTheMiddleThatRelaysTheMessagesNothing() throws Exception {
        JoinToken token = JoinToken.generate();
        try (var seed = seed(1, token); var relay = new FakeSeed()) {
            var seedAnswer = new CompletableFuture<Message>();
            relay.serve(worker -> {
                var tm = PinnedCaTrustManager.forTokenProof(ClusterCa.SEED_MEMBER_ID);
                try (var upstream = (SSLSocket) TlsMaterial.sslContext(tm).getSocketFactory().createSocket()) {
                    upstream.setSSLParameters(TlsMaterial.clientParameters());
                    upstream.connect(seed.boundAddress(), 5000);
                    upstream.setSoTimeout(10_000);
                    upstream.startHandshake();
                    Message challenge = FrameIo.read(upstream.getInputStream(), -1, 1 << 16);
                    FrameIo.write(worker.getOutputStream(), challenge);
                    Message request = FrameIo.read(worker.getInputStream(), -1, 1 << 16);
                    FrameIo.write(upstream.getOutputStream(), request);
                    Message answer = FrameIo.read(upstream.getInputStream(), -1, 1 << 16);
                    seedAnswer.complete(answer);
                    FrameIo.write(worker.getOutputStream(), answer);
                }
            });
            Throwable failure = Workers.failure(Workers.start(tokenOnly(relay.port(), token), -1, "127.0.0.1",
                    8500));
            assertThat(failure).isInstanceOf(ClusterFormationException.class)
                    .hasMessageContaining("refused the join: join token proof does not verify");
            assertThat(seedAnswer.get(5, TimeUnit.SECONDS)).isNotInstanceOf(SeedProof.class);
            assertThat(seed.refusals()).singleElement().extracting(SeedServer.Refusal::code)
                    .isEqualTo(JoinRefusal.BAD_TOKEN);
            assertThat(seed.joined()).isZero();
        }
    }

    /** A TLS server with a CA of its own that serves one connection with {@code handler}. */
    static final class FakeSeed implements AutoCloseable {
        final ClusterCa ca = ClusterCa.generate();
        final SSLServerSocket listener;
        Thread thread;

        interface Handler {
            void handle(SSLSocket socket) throws Exception;
        }

        FakeSeed() throws IOException {
            var context = TlsMaterial.sslContext(ca.issueSelf(Duration.ofHours(1)), (TrustManagerFactory) null);
            listener = (SSLServerSocket) context.getServerSocketFactory().createServerSocket();
            var params = new SSLParameters();
            params.setProtocols(new String[] {TlsMaterial.TLS_VERSION});
            listener.setSSLParameters(params);
            listener.bind(new InetSocketAddress("127.0.0.1", 0));
        }

        int port() {
            return listener.getLocalPort();
        }

        void serve(Handler handler) {
            thread = Thread.ofVirtual().start(() -> {
                try (var socket = (SSLSocket) listener.accept()) {
                    socket.setSoTimeout(10_000);
                    socket.startHandshake();
                    handler.handle(socket);
                } catch (Exception e) {
                    // the worker hung up, which is what these tests expect
                }
            });
        }

        @Override
        public void close() throws Exception {
            listener.close();
            if (thread != null) {
                thread.join(Duration.ofSeconds(10));
            }
        }
    }
}
