package io.nexar.transport.quic;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.nexar.ClusterFormationException;
import io.nexar.ErrorContext;
import io.nexar.Operation;
import io.nexar.PortRange;
import io.nexar.transport.quic.bulk.Addresses;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The listening sockets of one member, bound once and kept: the UDP socket that accepts QUIC connections and the TCP
 * socket of the lanes. A joining member must publish their addresses at enrolment, before it has the certificate
 * that the QUIC codec needs; so they are bound first (the UDP socket drops what arrives until
 * {@link #installQuic} puts the QUIC server codec in its place) and handed to the transport, never released and bound
 * again (that left a window in which another process could take the port).
 *
 * <p>Ports come from setting {@code port.range}: each socket binds the first free port of the range, and a range
 * with none free is a {@link ClusterFormationException} naming the setting. With {@link PortRange#ANY} a port is
 * picked at random below the kernel's ephemeral range ({@link PortReservation}), where no other process is handed
 * one automatically, and the kernel picks when that fails.
 *
 * <p>Until {@link QuicEndpoint} takes them over, {@link #close()} releases everything, the event loops included.
 */
final class Listeners implements AutoCloseable {
    private final NettyIo io;
    private Channel udp;
    private ServerSocketChannel tcp;
    private boolean handedOver;

    private Listeners(NettyIo io) {
        this.io = io;
    }

    /**
     * Binds the UDP (and, if {@code withTcp}, the TCP) listener on {@code host} within {@code range}, on event loops
     * named {@code nexar-quic-io-<n>} until {@link NettyIo#identify} names them after the rank.
     *
     * @param setting the name the user gave {@code range} under (for example {@code NEXAR_PORT_RANGE}), for errors
     * @throws ClusterFormationException if no port of the range is free, naming {@code setting}, or the host cannot be
     *         bound at all
     */
    static Listeners bind(InetAddress host, PortRange range, boolean withTcp, String setting) {
        var l = new Listeners(new NettyIo("nexar-quic", QuicTuning.forBindAddress(host)));
        try {
            l.udp = l.search(host, range, true, setting);
            if (withTcp) {
                l.tcp = l.search(host, range, false, setting);
            }
            return l;
        } catch (RuntimeException e) {
            l.close();
            throw e;
        }
    }

    /**
     * Binds exactly {@code quic} (port 0: the kernel picks) and, if {@code tcpPort >= 0}, TCP port {@code tcpPort} of
     * the same host, on {@code io}; for a transport given its address directly.
     */
    static Listeners bindExact(NettyIo io, InetSocketAddress quic, int tcpPort) throws IOException,
            InterruptedException {
        var l = new Listeners(io);
        try {
            l.udp = io.bindUdp(quic, new Placeholder());
            if (tcpPort >= 0) {
                l.tcp = bindTcp(new InetSocketAddress(quic.getAddress(), tcpPort));
            }
            return l;
        } catch (IOException | InterruptedException | RuntimeException e) {
            l.closeSockets();
            throw e;
        }
    }

    /** The event loops the UDP socket is registered with. */
    NettyIo io() {
        return io;
    }

    /** The UDP listener's address. */
    InetSocketAddress udpAddress() {
        return (InetSocketAddress) udp.localAddress();
    }

    /** The TCP listener's address, or null without one. */
    InetSocketAddress tcpAddress() {
        try {
            return tcp == null ? null : (InetSocketAddress) tcp.getLocalAddress();
        } catch (IOException e) {
            throw new IllegalStateException("the TCP listener is closed", e);
        }
    }

    /**
     * Replaces the placeholder of the UDP socket with {@code codec} (the QUIC server codec) and hands both sockets
     * over: from now on the caller closes them.
     *
     * @return the UDP channel
     */
    Channel installQuic(ChannelHandler codec) {
        udp.pipeline().replace(Placeholder.class, "quic", codec);
        handedOver = true;
        return udp;
    }

    /** The TCP listener, owned by the caller from now on (null without one). */
    ServerSocketChannel takeTcp() {
        handedOver = true;
        ServerSocketChannel t = tcp;
        tcp = null;
        return t;
    }

    /** Closes both sockets (those not handed over); the event loops stay. */
    void closeSockets() {
        if (udp != null) {
            udp.close().awaitUninterruptibly();
        }
        if (tcp != null) {
            try {
                tcp.close();
            } catch (IOException ignored) {
                // closing a listener that was never used
            }
        }
    }

    /** Releases the sockets and stops the event loops, unless they were handed over. Idempotent. */
    @Override
    public void close() {
        if (handedOver) {
            return;
        }
        handedOver = true;
        closeSockets();
        try {
            io.shutdown(Duration.ofSeconds(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Binds a UDP channel or TCP socket on {@code host} at a port of {@code range}, as described above. */
    @SuppressWarnings("unchecked")
    private <T> T search(InetAddress host, PortRange range, boolean udpSocket, String setting) {
        String what = udpSocket ? "UDP (QUIC)" : "TCP (lanes)";
        if (range.isAny()) {
            int[] candidates = PortReservation.randomRange(PortReservation.ephemeralLow());
            if (candidates != null) {
                var random = ThreadLocalRandom.current();
                for (int i = 0; i < PortReservation.ATTEMPTS; i++) {
                    Object bound = tryBind(host, random.nextInt(candidates[0], candidates[1]), udpSocket);
                    if (bound != null) {
                        return (T) bound;
                    }
                }
            }
            Object bound = tryBind(host, 0, udpSocket);
            if (bound == null) {
                throw new ClusterFormationException(ErrorContext.of(Operation.JOIN), "failed: cannot bind a " + what
                        + " port on " + host.getHostAddress());
            }
            return (T) bound;
        }
        for (int port = range.first(); port <= range.last(); port++) {
            Object bound = tryBind(host, port, udpSocket);
            if (bound != null) {
                return (T) bound;
            }
        }
        throw new ClusterFormationException(ErrorContext.of(Operation.JOIN), "failed: no free " + what + " port on "
                + host.getHostAddress() + " in " + setting + "=" + range + " (" + range.size()
                + (range.size() == 1 ? " port, in use" : " ports, all in use") + "): widen the range or free a port");
    }

    /** A bound channel at {@code port} (0: any), or null if that port is taken. */
    private Object tryBind(InetAddress host, int port, boolean udpSocket) {
        var address = new InetSocketAddress(host, port);
        try {
            return udpSocket ? io.bindUdp(address, new Placeholder()) : bindTcp(address);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClusterFormationException(ErrorContext.of(Operation.JOIN), "failed: interrupted while binding "
                    + Addresses.format(address), e);
        } catch (IOException e) {
            return null;
        } catch (RuntimeException e) {
            if (e.getCause() instanceof IOException || e instanceof java.io.UncheckedIOException) {
                return null;
            }
            throw e;
        }
    }

    private static ServerSocketChannel bindTcp(InetSocketAddress address) throws IOException {
        var server = ServerSocketChannel.open();
        try {
            server.bind(address);
            return server;
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** Drops the datagrams that arrive before the QUIC codec is installed; a dialer's QUIC retransmits them. */
    private static final class Placeholder extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }
    }
}
