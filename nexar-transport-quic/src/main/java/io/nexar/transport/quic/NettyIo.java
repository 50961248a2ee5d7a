package io.nexar.transport.quic;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.quic.EpollQuicUtils;
import io.netty.handler.codec.quic.SegmentedDatagramPacketAllocator;
import io.netty.util.concurrent.FastThreadLocalThread;
import io.nexar.internal.util.LogContext;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The Netty event loops and UDP sockets of one transport: epoll on Linux (with UDP GSO where the kernel has it), NIO
 * elsewhere. Threads are named {@code <prefix>-io-<n>} and are daemons, so a test can count them.
 *
 * <p>UDP sockets get a receive allocator that holds a whole datagram of {@link QuicTuning#maxUdpPayloadBytes()}
 * (Netty's default of 2 KiB silently drops larger QUIC packets, which looks like a hang) and 4 MiB socket buffers,
 * the usual kernel maximum, so bursts on loopback are not dropped.
 */
final class NettyIo {
    private static final int SOCKET_BUFFER_BYTES = 4 << 20;
    private static final int DATAGRAMS_PER_READ = 16;

    private final NamedThreads threads;
    private final EventLoopGroup group;
    private final boolean epoll;
    private final SegmentedDatagramPacketAllocator segments;
    private final int maxPayload;

    NettyIo(String threadPrefix, QuicTuning tuning) {
        this(threadPrefix, tuning, -1, -1);
    }

    /** Like {@link #NettyIo(String, QuicTuning)}; the event loops start with {@code rank} and world in their MDC. */
    NettyIo(String threadPrefix, QuicTuning tuning, int rank, int worldSize) {
        this.epoll = Epoll.isAvailable();
        this.threads = new NamedThreads(threadPrefix, rank, worldSize);
        this.group = new MultiThreadIoEventLoopGroup(tuning.ioThreads(), threads,
                epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        this.segments = epoll && tuning.gsoSegments() > 0 && EpollDatagramChannel.isSegmentedDatagramPacketSupported()
                ? EpollQuicUtils.newSegmentedAllocator(tuning.gsoSegments()) : SegmentedDatagramPacketAllocator.NONE;
        this.maxPayload = tuning.maxUdpPayloadBytes();
    }

    /** True when the native epoll transport is in use. */
    boolean epoll() {
        return epoll;
    }

    /** The GSO allocator for QUIC channels, or {@link SegmentedDatagramPacketAllocator#NONE}. */
    SegmentedDatagramPacketAllocator segments() {
        return segments;
    }

    /** Binds a UDP socket with {@code codec} (a QUIC server or client codec) as its handler; blocks until bound. */
    Channel bindUdp(InetSocketAddress address, ChannelHandler codec) throws InterruptedException {
        var b = new Bootstrap().group(group)
                .option(ChannelOption.SO_RCVBUF, SOCKET_BUFFER_BYTES)
                .option(ChannelOption.SO_SNDBUF, SOCKET_BUFFER_BYTES)
                .option(ChannelOption.RECVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(
                        epoll ? maxPayload * DATAGRAMS_PER_READ : maxPayload))
                .handler(codec);
        if (epoll) {
            // recvmmsg: one read fills up to DATAGRAMS_PER_READ datagrams of maxPayload bytes each.
            b.channel(EpollDatagramChannel.class).option(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, maxPayload);
        } else {
            b.channel(NioDatagramChannel.class);
        }
        return b.bind(address).sync().channel();
    }

    /** A TCP server bootstrap on these event loops (epoll or NIO), for the bulk lane. */
    ServerBootstrap tcpServer() {
        return new ServerBootstrap().group(group)
                .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class);
    }

    /** A TCP client bootstrap on these event loops (epoll or NIO), for the bulk lane. */
    Bootstrap tcpClient() {
        return new Bootstrap().group(group).channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class);
    }

    /**
     * Shuts the event loops down at once and waits at most {@code timeout}; true if every thread ended. Netty reports
     * termination from inside the thread, just before it exits, so the threads themselves are joined too.
     */
    boolean shutdown(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        group.shutdownGracefully(0, timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!group.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            return false;
        }
        for (Thread t : threads.started) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !t.join(Duration.ofNanos(left))) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@link #shutdown} was called. */
    boolean isShuttingDown() {
        return group.isShuttingDown();
    }

    /** The event loop group (for scheduling transport timers). */
    EventLoopGroup group() {
        return group;
    }

    /**
     * Names the event loops {@code <prefix>-io-<n>} from now on and puts {@code rank} and {@code worldSize} in their
     * MDC: for loops started before the rank was known (a joining member binds its listeners before enrolment). A
     * loop already running renames itself in a task queued before any later one.
     */
    void identify(String prefix, int rank, int worldSize) {
        threads.prefix = prefix;
        threads.rank = rank;
        threads.worldSize = worldSize;
        for (var e : group) {
            e.execute(() -> {
                Thread t = Thread.currentThread();
                t.setName(prefix + t.getName().substring(t.getName().lastIndexOf("-io-")));
                LogContext.set(rank, worldSize);
            });
        }
    }

    /** Daemon {@link FastThreadLocalThread}s named {@code <prefix>-io-<n>}. */
    private static final class NamedThreads implements ThreadFactory {
        private volatile String prefix;
        private final AtomicInteger next = new AtomicInteger();
        final List<Thread> started = new CopyOnWriteArrayList<>();

        private volatile int rank;
        private volatile int worldSize;

        NamedThreads(String prefix, int rank, int worldSize) {
            this.prefix = prefix;
            this.rank = rank;
            this.worldSize = worldSize;
        }

        @Override
        public Thread newThread(Runnable r) {
            var t = new FastThreadLocalThread(() -> {
                LogContext.set(this.rank, this.worldSize); // once per event loop: its log lines carry the rank
                r.run();
            }, prefix + "-io-" + next.getAndIncrement());
            t.setDaemon(true);
            started.add(t);
            return t;
        }
    }
}
