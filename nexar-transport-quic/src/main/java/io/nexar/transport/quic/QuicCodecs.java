package io.nexar.transport.quic;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.handler.codec.quic.QuicChannel;
import io.netty.handler.codec.quic.QuicChannelOption;
import io.netty.handler.codec.quic.QuicClientCodecBuilder;
import io.netty.handler.codec.quic.QuicCodecBuilder;
import io.netty.handler.codec.quic.QuicServerCodecBuilder;
import io.netty.handler.codec.quic.QuicSslContext;
import io.netty.handler.codec.quic.QuicSslContextBuilder;
import io.netty.handler.codec.quic.QuicSslEngine;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.SegmentedDatagramPacketAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.nexar.transport.quic.security.PeerVerifier;
import io.nexar.transport.quic.security.TlsMaterial;
import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Builds the QUIC codecs of a transport: the listening (server) codec and the dialling (client) codec, both with
 * mutual TLS 1.3 and ALPN {@value QuicTuning#ALPN}.
 *
 * <p>Trust, inside the TLS handshake: both sides accept only chains issued by the cluster CA ({@link PeerVerifier});
 * a dialer also requires the acceptor's certificate to name the member of the peer-table entry it dials. Which rank
 * an accepted dialer is, is decided right after the handshake by {@link Connection} (the peer table may not be known
 * yet during the handshake). Host names are never checked: peers are identified by member id (docs/design.md section 4),
 * so the client context has no endpoint identification algorithm; nothing else is relaxed. Every refusal is
 * reported to the {@link Connection} of the handshake, so formation errors can say what was refused and why.
 *
 * <p>Streams: a dialer may open exactly four bidirectional streams (the lanes) towards the acceptor, the acceptor
 * none towards the dialer, and nobody unidirectional streams, so stray streams cannot accumulate.
 */
final class QuicCodecs {
    private static final long LANES = 4;
    private static final ChannelHandler REJECT_STREAMS = new RejectStreams();

    private QuicCodecs() {
    }

    /** The codec of the listening socket; {@code connection} makes the handler of each accepted connection. */
    static ChannelHandler server(CredentialSlot credentials, PeerVerifier verifier, QuicTuning tuning,
                                 SegmentedDatagramPacketAllocator segments, Supplier<Connection> connection) {
        var engines = new ConcurrentHashMap<SSLEngine, QuicChannel>();
        // the key manager reads the slot at each handshake: a renewed certificate serves every later connection
        QuicSslContext ssl = QuicSslContextBuilder.forServer(TlsMaterial.keyManagerFactory(credentials), null)
                .trustManager(new PeerTrustManager(verifier, engines))
                .clientAuth(ClientAuth.REQUIRE)
                .applicationProtocols(QuicTuning.ALPN)
                .build();
        var b = configure(new QuicServerCodecBuilder(), tuning)
                .sslEngineProvider(ch -> newEngine(ssl, ch, engines))
                .initialMaxStreamsBidirectional(LANES)
                .handler(new ChannelInitializer<QuicChannel>() {
                    @Override
                    protected void initChannel(QuicChannel ch) {
                        ch.pipeline().addLast(connection.get());
                    }
                })
                .streamOption(ChannelOption.AUTO_READ, false)
                .streamHandler(new ChannelInitializer<QuicStreamChannel>() {
                    @Override
                    protected void initChannel(QuicStreamChannel s) {
                        ((AcceptedConnection) s.parent().attr(Connection.KEY).get()).onAcceptedStream(s);
                    }
                });
        if (segments != SegmentedDatagramPacketAllocator.NONE) {
            b.option(QuicChannelOption.SEGMENTED_DATAGRAM_PACKET_ALLOCATOR, segments);
        }
        return b.build();
    }

    /**
     * The codec of the dialling socket (one socket for every connection this rank dials). Each dial sets
     * {@link Connection#KEY} on its channel before connecting, so the handshake knows whom it expects.
     */
    static ChannelHandler client(CredentialSlot credentials, PeerVerifier verifier, QuicTuning tuning) {
        var engines = new ConcurrentHashMap<SSLEngine, QuicChannel>();
        QuicSslContext ssl = QuicSslContextBuilder.forClient()
                .keyManager(TlsMaterial.keyManagerFactory(credentials), null)
                .trustManager(new PeerTrustManager(verifier, engines))
                .endpointIdentificationAlgorithm(null) // identity = member id, checked by PeerTrustManager
                .applicationProtocols(QuicTuning.ALPN)
                .build();
        return configure(new QuicClientCodecBuilder(), tuning)
                .sslEngineProvider(ch -> newEngine(ssl, ch, engines))
                .initialMaxStreamsBidirectional(0)
                .build();
    }

    /** A stream handler for dialled connections, which never accept streams: closes any that appears. */
    static ChannelHandler rejectStreams() {
        return REJECT_STREAMS;
    }

    private static <B extends QuicCodecBuilder<B>> B configure(B b, QuicTuning t) {
        return b.maxIdleTimeout(t.idleTimeout().toMillis(), TimeUnit.MILLISECONDS)
                .initialMaxData(t.initialMaxData())
                .initialMaxStreamDataBidirectionalLocal(t.initialMaxStreamData())
                .initialMaxStreamDataBidirectionalRemote(t.initialMaxStreamData())
                .initialMaxStreamDataUnidirectional(0)
                .initialMaxStreamsUnidirectional(0)
                .maxSendUdpPayloadSize(t.maxUdpPayloadBytes())
                .maxRecvUdpPayloadSize(t.maxUdpPayloadBytes())
                .activeMigration(false);
    }

    /** An engine the trust manager can map back to its channel (and so to its {@link Connection}). */
    private static QuicSslEngine newEngine(QuicSslContext ssl, QuicChannel ch, Map<SSLEngine, QuicChannel> engines) {
        QuicSslEngine engine = ssl.newEngine(ch.alloc());
        engines.put(engine, ch);
        ch.closeFuture().addListener(f -> engines.remove(engine));
        return engine;
    }

    @ChannelHandler.Sharable
    private static final class RejectStreams extends ChannelInboundHandlerAdapter {
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ctx.close();
        }
    }

    /**
     * The cluster trust manager ({@link PeerVerifier}) for one QUIC codec: as a server it accepts any member of the
     * cluster; as a client it accepts only the member its dial expects. Refusals go to the handshake's Connection.
     * It gives no accepted-issuer hint, so a client whose certificate is from another CA still presents it and the
     * refusal can say so; trust is decided by the checks, never by that list.
     */
    private static final class PeerTrustManager extends X509ExtendedTrustManager {
        private final PeerVerifier verifier;
        private final X509ExtendedTrustManager anyMember;
        private final Map<SSLEngine, QuicChannel> engines;
        private final Map<String, X509ExtendedTrustManager> byMember = new ConcurrentHashMap<>();

        PeerTrustManager(PeerVerifier verifier, Map<SSLEngine, QuicChannel> engines) {
            this.verifier = verifier;
            this.anyMember = verifier.trustManager();
            this.engines = engines;
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            Connection c = connection(engine);
            try {
                anyMember.checkClientTrusted(chain, authType, engine);
            } catch (CertificateException e) {
                if (c != null) {
                    c.refusedInHandshake(e.getMessage());
                }
                throw e;
            }
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
                throws CertificateException {
            Connection c = connection(engine);
            if (c == null || c.expectedMember() == null) {
                throw new CertificateException("no dial is expecting this peer");
            }
            try {
                byMember.computeIfAbsent(c.expectedMember(), verifier::trustManager)
                        .checkServerTrusted(chain, authType, engine);
            } catch (CertificateException e) {
                c.refusedInHandshake(e.getMessage());
                throw e;
            }
        }

        private Connection connection(SSLEngine engine) {
            QuicChannel ch = engine == null ? null : engines.get(engine);
            return ch == null ? null : ch.attr(Connection.KEY).get();
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            throw new CertificateException("QUIC handshakes are checked per engine");
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
                throws CertificateException {
            throw new CertificateException("QUIC handshakes are checked per engine");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new CertificateException("QUIC handshakes are checked per engine");
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new CertificateException("QUIC handshakes are checked per engine");
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
