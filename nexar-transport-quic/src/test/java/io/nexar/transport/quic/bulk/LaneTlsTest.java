package io.nexar.transport.quic.bulk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.handler.ssl.OpenSsl;
import io.nexar.InvalidConfigurationException;
import io.nexar.transport.quic.QuicTestCluster;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The TCP lanes' TLS engines: BoringSSL and the JDK's interoperate in every combination of client and server, check
 * the member identity the same way, and carry records both ways over {@link BulkSocket}.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LaneTlsTest {
    private static final long SEED = 0x5EED_1A2EL;

    @ParameterizedTest(name = "client {0}, server {1}")
    @CsvSource({"jdk, jdk", "jdk, boringssl", "boringssl, jdk", "boringssl, boringssl"})
    void shouldHandshakeAndCarryDataBetweenAnyTwoEngines(String client, String server) throws Exception {
        assumeBoringSsl(client, server);
        var dialer = LaneTls.create(client, QuicTestCluster.credentials(0));
        var acceptor = LaneTls.create(server, QuicTestCluster.credentials(1));
        try (var pair = Pair.open(dialer.clientEngine("m1"), dialer.directBuffers(), acceptor.serverEngine(),
                acceptor.directBuffers())) {
            pair.handshake();
            assertThat(new io.nexar.transport.quic.security.PeerVerifier(QuicTestCluster.CA.certificate())
                    .verify(pair.server.session(), "m0")).isEqualTo("m0");
            System.out.println("LaneTlsTest seed " + SEED);
            var random = new Random(SEED);
            for (int size : new int[] {1, 8, 4096, 100_000, 3 << 20}) {
                byte[] data = new byte[size];
                random.nextBytes(data);
                assertThat(pair.send(pair.client, pair.server, data)).as("%d bytes client to server", size)
                        .isEqualTo(data);
                assertThat(pair.send(pair.server, pair.client, data)).as("%d bytes server to client", size)
                        .isEqualTo(data);
            }
        }
    }

    @ParameterizedTest(name = "client {0}, server {1}")
    @CsvSource({"jdk, boringssl", "boringssl, jdk"})
    void shouldRefuseAServerThatIsNotTheDialledMember(String client, String server) throws Exception {
        assumeBoringSsl(client, server);
        var dialer = LaneTls.create(client, QuicTestCluster.credentials(0));
        var acceptor = LaneTls.create(server, QuicTestCluster.credentials(2)); // m2 answers where m1 was dialled
        try (var pair = Pair.open(dialer.clientEngine("m1"), dialer.directBuffers(), acceptor.serverEngine(),
                acceptor.directBuffers())) {
            assertThatThrownBy(pair::handshake).isInstanceOf(IOException.class);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"jdk", "boringssl", "plain"})
    void shouldCallTheSocketDrainedOnlyWhenNothingReadableIsLeftHere(String engine) throws Exception {
        assumeBoringSsl(engine);
        boolean plain = engine.equals("plain");
        var dialer = plain ? null : LaneTls.create(engine, QuicTestCluster.credentials(0));
        var acceptor = plain ? null : LaneTls.create(engine, QuicTestCluster.credentials(1));
        try (var pair = Pair.open(plain ? null : dialer.clientEngine("m1"), !plain && dialer.directBuffers(),
                plain ? null : acceptor.serverEngine(), !plain && acceptor.directBuffers())) {
            pair.handshake();
            pair.server.goNonBlocking();
            byte[] data = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
            pair.write(pair.client, data); // one TLS record (one TCP segment plain) of 16 bytes
            ByteBuffer half = ByteBuffer.allocate(8);
            readSome(pair.server, half); // what it returns counts the spill's bytes too (PayloadStream)
            assertThat(half.position()).isEqualTo(8);
            // the record's other half waits in the spill: a poll must not stop here
            assertThat(pair.server.drainedAtLastRead()).isFalse();
            ByteBuffer rest = ByteBuffer.allocate(8);
            assertThat(pair.server.readAvailable(rest)).isEqualTo(8); // from the spill, no socket read
            assertThat(rest.position()).isEqualTo(8);
            assertThat(pair.server.drainedAtLastRead()).isTrue();
            assertThat(half.array()).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
            assertThat(rest.array()).containsExactly(9, 10, 11, 12, 13, 14, 15, 16);
        }
    }

    /** readAvailable until it gives something, waiting for the socket between tries (the test's timeout bounds it). */
    private static int readSome(BulkSocket socket, ByteBuffer dst) throws IOException {
        int n;
        while ((n = socket.readAvailable(dst)) == 0) {
            socket.awaitReadable();
        }
        return n;
    }

    @Test
    void shouldChooseTheEngineTheSettingNames() {
        assertThat(LaneTls.choose("jdk")).isEqualTo(LaneTls.Engine.JDK);
        assertThat(LaneTls.choose("auto")).isEqualTo(OpenSsl.isAvailable() ? LaneTls.Engine.BORINGSSL
                : LaneTls.Engine.JDK);
        if (!OpenSsl.isAvailable()) {
            assertThatThrownBy(() -> LaneTls.choose("boringssl")).isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("tls.engine");
        }
        assertThat(LaneTls.describe("auto")).isNotBlank();
    }

    private static void assumeBoringSsl(String... engines) {
        for (String e : engines) {
            assumeTrue(!e.equals("boringssl") || OpenSsl.isAvailable(), "BoringSSL does not load here: "
                    + OpenSsl.unavailabilityCause());
        }
    }

    /** Two blocking sockets over loopback with a TLS engine each. */
    private record Pair(SocketChannel a, SocketChannel b, BulkSocket client, BulkSocket server)
            implements AutoCloseable {
        private static final byte[] HELLO = {'h', 'e', 'l', 'l', 'o', 0, 0, 1};

        static Pair open(SSLEngine clientEngine, boolean clientDirect, SSLEngine serverEngine, boolean serverDirect)
                throws IOException {
            try (var listener = ServerSocketChannel.open()) {
                listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                SocketChannel a = SocketChannel.open(listener.getLocalAddress());
                SocketChannel b = listener.accept();
                return new Pair(a, b, new BulkSocket(a, clientEngine, clientDirect),
                        new BulkSocket(b, serverEngine, serverDirect));
            }
        }

        void handshake() throws Exception {
            var serverSide = CompletableFuture.runAsync(() -> {
                try {
                    server.handshake();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            try {
                client.handshake();
            } catch (IOException e) {
                b.close(); // the other end must not wait for a handshake that ended
                throw e;
            }
            // as on a lane, the dialer speaks first (its HELLO): a server engine may end its handshake only when
            // the first record after the client's Finished arrives
            ByteBuffer out = client.output().newOutBuffer();
            client.output().fill(new ByteBuffer[] {ByteBuffer.wrap(HELLO)}, out);
            client.output().flush(out);
            serverSide.get(20, TimeUnit.SECONDS);
            ByteBuffer hello = ByteBuffer.allocate(HELLO.length);
            assertThat(server.readFully(hello, true)).isTrue();
            assertThat(hello.array()).isEqualTo(HELLO);
        }

        /** Writes {@code data} from one end at once, in one piece (a blocking flush). */
        void write(BulkSocket from, byte[] data) throws IOException {
            BulkOutput output = from.output();
            ByteBuffer out = output.newOutBuffer();
            output.fill(new ByteBuffer[] {ByteBuffer.wrap(data)}, out);
            output.flush(out);
        }

        /** Writes {@code data} from one end (another thread) and reads it whole at the other. */
        byte[] send(BulkSocket from, BulkSocket to, byte[] data) throws Exception {
            var writing = CompletableFuture.runAsync(() -> {
                try {
                    BulkOutput output = from.output();
                    ByteBuffer out = output.newOutBuffer();
                    ByteBuffer[] srcs = {ByteBuffer.wrap(data)};
                    while (BulkOutput.hasRemaining(srcs)) {
                        output.fill(srcs, out);
                        output.flush(out);
                    }
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            ByteBuffer got = ByteBuffer.allocate(data.length);
            assertThat(to.readFully(got, true)).isTrue();
            writing.get(20, TimeUnit.SECONDS);
            return got.array();
        }

        @Override
        public void close() throws IOException {
            a.close();
            b.close();
        }
    }
}
