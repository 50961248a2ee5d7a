package io.nexar.transport.quic;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.nexar.internal.util.Deadline;
import io.nexar.transport.quic.security.TlsMaterial;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TCP side of a transport's bulk lane: one listening socket, and one connection per peer pair, dialled by the
 * lower rank once the pair's QUIC connection is ready. TLS uses the JDK's TLS 1.3 through Netty's {@link SslHandler},
 * with the same key, CA and member checks as QUIC ({@link TlsMaterial}); {@link BulkConnection} checks which member
 * it reached. Runs on the transport's event loops.
 */
final class BulkEndpoint {
    private static final Logger LOG = LoggerFactory.getLogger(BulkEndpoint.class);
    /** Bytes a bulk lane may queue before its senders wait: a few chunks, so the socket never runs dry. */
    private static final int HIGH_WATER_BYTES = 8 << 20;
    /** The JDK's TLS engine works on heap buffers: direct ones would be copied in and out of it. */
    private static final PooledByteBufAllocator HEAP = new PooledByteBufAllocator(false);
    private static final String[] CIPHERS = {"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
        "TLS_CHACHA20_POLY1305_SHA256"};

    private final QuicTransport transport;
    private final MemberCredentials credentials;
    private final boolean tls;
    private final NettyIo io;
    private final ChannelGroup channels;
    private final SSLContext serverTls;
    private Channel server;

    private BulkEndpoint(QuicTransport transport, MemberCredentials credentials, boolean tls, NettyIo io) {
        this.transport = transport;
        this.credentials = credentials;
        this.tls = tls;
        this.io = io;
        this.channels = new DefaultChannelGroup("nexar-bulk-r" + transport.rank(), io.group().next());
        this.serverTls = tls ? TlsMaterial.sslContext(credentials) : null;
    }

    /** Listens on {@code host}, port {@code options.port()} (0: any), on the event loops of {@code io}. */
    static BulkEndpoint bind(QuicTransport transport, MemberCredentials credentials, BulkLaneOptions options,
                             NettyIo io, InetSocketAddress host) throws InterruptedException {
        boolean tls = options.mode() == BulkLaneOptions.Mode.TLS;
        var e = new BulkEndpoint(transport, credentials, tls, io);
        if (!tls) {
            LOG.warn("rank {}: bulk=tcp-plain: large messages travel on TCP without encryption or authentication;"
                    + " use this only on an isolated network", transport.rank());
        }
        e.server = io.tcpServer()
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.ALLOCATOR, tls ? HEAP : PooledByteBufAllocator.DEFAULT)
                .childHandler(e.initializer(null))
                .bind(new InetSocketAddress(host.getAddress(), options.port())).sync().channel();
        e.channels.add(e.server);
        return e;
    }

    /** The listening address. */
    InetSocketAddress localAddress() {
        return (InetSocketAddress) server.localAddress();
    }

    /**
     * Dials the bulk lane of every higher rank whose table entry has a bulk address, and waits until each is attached
     * or abandoned, at most until {@code deadline}. Never fails: a pair without bulk lane uses QUIC.
     */
    void connectAll(PeerLink[] links, PeerTable table, Deadline deadline) {
        List<CompletableFuture<Void>> setUps = new ArrayList<>();
        for (int p = transport.rank() + 1; p < links.length; p++) {
            InetSocketAddress address = table.get(p).bulkAddress();
            if (address != null && links[p].isReady()) {
                setUps.add(dial(links[p], address, deadline));
            }
        }
        try {
            CompletableFuture.allOf(setUps.toArray(CompletableFuture[]::new))
                    .get(deadline.remainingNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException e) {
            LOG.warn("rank {}: not every bulk lane was set up before the formation deadline; those pairs use QUIC",
                    transport.rank());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private CompletableFuture<Void> dial(PeerLink link, InetSocketAddress address, Deadline deadline) {
        var owner = new BulkConnection(transport, link, tls);
        long millis = Math.clamp(TimeUnit.NANOSECONDS.toMillis(deadline.remainingNanos()), 1, Integer.MAX_VALUE);
        io.tcpClient().option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.ALLOCATOR, tls ? HEAP : PooledByteBufAllocator.DEFAULT)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) millis)
                .handler(initializer(owner))
                .connect(address).addListener(f -> {
                    if (!f.isSuccess()) {
                        owner.fallBack("could not be reached at " + Texts.format(address) + " (" + f.cause() + ")");
                    }
                });
        return owner.setUp();
    }

    /** Sets up a bulk connection's pipeline; {@code dialled} is null for an accepted connection. */
    private ChannelInitializer<SocketChannel> initializer(BulkConnection dialled) {
        return new ChannelInitializer<>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                channels.add(ch);
                var owner = dialled != null ? dialled : new BulkConnection(transport, null, tls);
                if (tls) {
                    SSLContext context = dialled == null ? serverTls : TlsMaterial.sslContext(credentials,
                            transport.table().get(dialled.target().peer).memberId());
                    var engine = TlsMaterial.engine(context, dialled == null);
                    engine.setEnabledCipherSuites(CIPHERS); // AES-128-GCM first: the fastest on the JDK
                    ch.pipeline().addLast(new SslHandler(engine));
                }
                ch.pipeline().addLast(new LaneStream(owner, null, ch, HIGH_WATER_BYTES), owner);
            }
        };
    }

    /** Closes the listening socket and every bulk connection still open, waiting at most {@code timeout}. */
    void shutdown(Duration timeout) {
        channels.close().awaitUninterruptibly(timeout.toMillis());
    }
}
