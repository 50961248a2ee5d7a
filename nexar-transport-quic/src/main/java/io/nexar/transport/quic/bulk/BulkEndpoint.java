package io.nexar.transport.quic.bulk;

import io.nexar.internal.config.Units;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.util.Deadline;
import io.nexar.internal.util.LogContext;
import io.nexar.transport.quic.MemberCredentials;
import io.nexar.transport.quic.security.TlsMaterial;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TCP side of a transport's bulk lane: one listening socket, and two {@link BulkConnection}s per peer pair (one
 * for the P2P lane, one for the COLLECTIVE lane), dialled by the lower rank once the pair's QUIC connection is ready. TLS is TLS 1.3 through an
 * {@link SSLEngine} that {@link LaneTls} picks: BoringSSL (netty-tcnative) where it loads, else the JDK's (setting
 * {@code tls.engine}), AES-128-GCM first, with the same key, CA and member checks as QUIC ({@link TlsMaterial});
 * {@link BulkConnection} checks which member it reached.
 *
 * <p>Threading: platform threads named {@code nexar-bulk-r<rank>-...}: one accepting, and a reader and a writer per
 * connection (four per peer: a cluster of n ranks has 4(n-1) of them per process, mostly parked; each connection
 * also holds two selectors); setup deadlines run on the transport's event loops. {@link #shutdown} closes
 * every socket and waits for every one of these threads to end.
 */
public final class BulkEndpoint {
    private static final Logger LOG = LoggerFactory.getLogger(BulkEndpoint.class);
    /** How long an accepted connection may take to finish TLS and the Hellos (Netty's TLS handshake default). */
    static final Duration ACCEPT_SETUP = Duration.ofSeconds(10);
    /**
     * The least time a dialled connection gets for its setup, whatever is left of the formation deadline: twice the
     * acceptor's. The acceptor attaches its lane when it sends its HELLO; if the dialer then gave up before reading
     * that HELLO, the acceptor would take the dialer's close for a dead peer. With the dialer's budget the longer one,
     * a slow setup is abandoned by the acceptor first, before it attached anything, and the dialer falls back when its
     * socket ends; the dialer abandons an accepted lane only if the acceptor's HELLO takes over 10 s to reach it. A
     * formation that used most of its deadline (a loaded machine) still gives each dial this much time: setups
     * still running when {@link #connectAll} returns go on, and their pair uses QUIC until its lane is attached.
     */
    static final Duration MIN_DIAL_SETUP = ACCEPT_SETUP.multipliedBy(2);
    /**
     * The least number of accepted connections whose setup may be under way at once ({@link #pendingAcceptLimit}):
     * each holds a thread and two selectors until its dialer is identified or {@link #ACCEPT_SETUP} passes, and
     * anyone who reaches the port can open one, before any certificate is seen.
     */
    static final int MIN_PENDING_ACCEPTS = 64;
    /** The lanes that get a TCP connection of their own per pair, so that they never block each other. */
    private static final Lane[] TCP_LANES = {Lane.P2P, Lane.COLLECTIVE};

    private final BulkHost host;
    private final boolean tls;
    /** The lanes' TLS engines (BoringSSL or the JDK's), or null for plain TCP. */
    private final LaneTls laneTls;
    private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
    private final Set<BulkConnection> connections = ConcurrentHashMap.newKeySet();
    /** Accepted connections still being set up, oldest first (the accept thread's only). */
    private final ArrayDeque<BulkConnection> pendingAccepts = new ArrayDeque<>();
    /** How many of them were closed to make room for newer ones (the accept thread's only). */
    private long closedForRoom;
    private volatile boolean stopped;
    private ServerSocketChannel server;

    private BulkEndpoint(BulkHost host, LaneTls laneTls) {
        this.host = host;
        this.tls = laneTls != null;
        this.laneTls = laneTls;
    }

    /**
     * Accepts on {@code server}, already bound (once, before enrolment, by the transport's listeners), and starts the
     * accept thread.
     *
     * @param host the transport this endpoint serves
     * @param credentials this member's credentials, read at each TLS handshake (a renewed certificate serves every
     *                    later connection)
     * @param options the bulk lane's mode: TLS or plain TCP (not OFF)
     * @param tlsEngine setting {@code tls.engine}: auto, boringssl or jdk
     * @param server the listening socket, bound, blocking
     * @return the endpoint, accepting
     */
    public static BulkEndpoint bind(BulkHost host, Supplier<MemberCredentials> credentials, BulkLaneOptions options,
                                    String tlsEngine, ServerSocketChannel server) {
        boolean tls = options.mode() == BulkLaneOptions.Mode.TLS;
        var e = new BulkEndpoint(host, tls ? LaneTls.create(tlsEngine, credentials) : null);
        if (tls) {
            LOG.info("rank {}: TCP lanes use TLS 1.3 through {}", host.rank(), e.laneTls.describe());
        } else {
            LOG.warn("rank {}: bulk=tcp-plain: large messages travel on TCP without encryption or authentication;"
                    + " use this only on an isolated network", host.rank());
        }
        e.server = server;
        e.startThread("nexar-bulk-r" + host.rank() + "-accept", e::acceptLoop);
        return e;
    }

    /** The listening address. */
    public InetSocketAddress localAddress() {
        try {
            return (InetSocketAddress) server.getLocalAddress();
        } catch (IOException e) {
            throw new IllegalStateException("the bulk lane's socket is closed", e);
        }
    }

    private void acceptLoop() {
        while (!stopped) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (ClosedChannelException closed) {
                return;
            } catch (IOException e) {
                if (!stopped) {
                    LOG.warn("rank {}: accepting a bulk connection failed", host.rank(), e);
                }
                return;
            }
            try {
                configure(ch);
                makeRoomForAnAccept(ch);
                var c = new BulkConnection(host, this, null, null, null, ch, newSocket(ch,
                        tls ? laneTls.serverEngine() : null));
                pendingAccepts.add(c);
                track(c).start(Deadline.after(ACCEPT_SETUP));
            } catch (IOException | RuntimeException e) {
                LOG.warn("rank {}: could not set up an accepted bulk connection", host.rank(), e);
                closeQuietly(ch);
            }
        }
    }

    /**
     * The most accepted connections whose setup may be under way at once in a world of {@code worldSize}: twice what
     * formation needs at the highest rank (a connection per TCP lane from each other rank), at least
     * {@link #MIN_PENDING_ACCEPTS}. A real dialer finishes its setup within milliseconds; connections that never speak
     * (a flood, a scanner) hold at most this many threads, not one per connection for {@link #ACCEPT_SETUP}.
     *
     * @param worldSize the ranks of the world
     * @return the limit
     */
    static int pendingAcceptLimit(int worldSize) {
        return Math.max(MIN_PENDING_ACCEPTS, 2 * TCP_LANES.length * worldSize);
    }

    /**
     * Before a new accepted connection is set up: forgets the accepted connections whose setup ended (attached or
     * fallen back), and at the limit closes the oldest still being set up. Logs the first closing at WARN, naming
     * the newcomer's address, and every 1,000th after it. Accept thread.
     */
    private void makeRoomForAnAccept(SocketChannel newcomer) {
        pendingAccepts.removeIf(c -> c.setUp().isDone());
        int limit = pendingAcceptLimit(host.worldSize());
        while (pendingAccepts.size() >= limit) {
            if (pendingAccepts.poll().abandonSetup(null) && closedForRoom++ % 1000 == 0) {
                LOG.warn("rank {}: {} connections to its bulk-lane port are being set up, the most it holds in a world"
                        + " of {}: closed the oldest for a new one from {} ({} closed so far; a flood of connections"
                        + " that never speak?)", host.rank(), limit, host.worldSize(), Addresses.remote(newcomer),
                        closedForRoom);
            }
        }
    }

    /**
     * Dials the bulk lane of every target (links to higher ranks) whose table entry has a bulk address, and waits
     * until each is attached or abandoned, at most until {@code deadline}. Never fails: a pair without bulk lane uses
     * QUIC.
     *
     * @param targets the peers this rank dials (higher ranks, each with a ready QUIC link or about to be refused)
     * @param bulkAddress the bulk-lane address the peer table gives a rank, or null if it has none
     * @param deadline the formation's deadline
     */
    public void connectAll(List<? extends BulkPeer> targets, IntFunction<InetSocketAddress> bulkAddress,
                           Deadline deadline) {
        List<CompletableFuture<Void>> setUps = new ArrayList<>();
        for (BulkPeer l : targets) {
            InetSocketAddress address = bulkAddress.apply(l.peer());
            if (address != null && l.isReady()) {
                for (Lane lane : TCP_LANES) {
                    setUps.add(dial(l, lane, address, deadline));
                }
            }
        }
        try {
            CompletableFuture.allOf(setUps.toArray(CompletableFuture[]::new))
                    .get(deadline.remainingNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException e) {
            LOG.warn("rank {}: not every bulk lane was set up before the formation deadline; those pairs use QUIC",
                    host.rank());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private CompletableFuture<Void> dial(BulkPeer link, Lane lane, InetSocketAddress address, Deadline deadline) {
        SocketChannel ch = null;
        try {
            ch = SocketChannel.open();
            configure(ch);
            SSLEngine engine = tls ? laneTls.clientEngine(host.memberId(link.peer())) : null;
            var c = new BulkConnection(host, this, link, lane, address, ch, newSocket(ch, engine));
            track(c).start(dialDeadline(deadline));
            return c.setUp();
        } catch (IOException | RuntimeException e) {
            LOG.warn("rank {}: the {} bulk connection of rank {} could not be dialled at {} ({}); that lane uses QUIC"
                    + " instead", host.rank(), lane, link.peer(), Addresses.format(address), e.toString());
            closeQuietly(ch);
            return CompletableFuture.completedFuture(null);
        }
    }

    /** The setup deadline of a dialled connection: the formation's, but at least {@link #MIN_DIAL_SETUP} from now. */
    static Deadline dialDeadline(Deadline formation) {
        return formation.remainingNanos() >= MIN_DIAL_SETUP.toNanos() ? formation : Deadline.after(MIN_DIAL_SETUP);
    }

    private static void configure(SocketChannel ch) throws IOException {
        ch.configureBlocking(true);
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
    }

    private BulkSocket newSocket(SocketChannel ch, SSLEngine engine) {
        return new BulkSocket(ch, engine, engine != null && laneTls.directBuffers());
    }

    private BulkConnection track(BulkConnection c) {
        connections.add(c);
        if (stopped) {
            c.close();
        }
        return c;
    }

    /** A connection whose reader and writer ended: nothing left to close. */
    void forget(BulkConnection c) {
        connections.remove(c);
    }

    /**
     * Starts a platform (daemon) thread named {@code name}; {@link #shutdown} waits for it. Platform, not virtual: a
     * platform thread blocked in a socket read is woken by the kernel itself, a virtual one by the JDK's poller thread
     * and then a carrier thread, two more hand-offs on every small message (measured in docs/performance.md).
     */
    void startThread(String name, Runnable body) {
        Thread t = Thread.ofPlatform().daemon().name(name).unstarted(() -> {
            LogContext.set(host.rank(), host.worldSize()); // once per lane thread, not per message
            try {
                body.run();
            } finally {
                threads.remove(Thread.currentThread());
            }
        });
        synchronized (threads) { // shutdown's snapshot sees a thread only once it is started (join refuses others)
            threads.add(t);
            t.start();
        }
    }

    /** Runs {@code action} after {@code nanos} on one of the transport's timers (setup deadlines). */
    void schedule(Runnable action, long nanos) {
        host.schedule(action, nanos);
    }

    /** Threads of this endpoint that are still alive (for tests). */
    List<Thread> liveThreads() {
        return threads.stream().filter(Thread::isAlive).toList();
    }

    /** Closes the listening socket and every bulk connection, and waits at most {@code timeout} for their threads. */
    public void shutdown(Duration timeout) {
        Deadline deadline = Deadline.after(timeout);
        stopped = true;
        closeQuietly(server);
        for (BulkConnection c : connections) {
            c.close();
        }
        List<Thread> started;
        synchronized (threads) {
            started = List.copyOf(threads);
        }
        try {
            for (Thread t : started) {
                long left = deadline.remainingNanos();
                if (left <= 0 || !t.join(Duration.ofNanos(left))) {
                    LOG.warn("rank {}: bulk-lane thread {} did not end within {}", host.rank(), t.getName(),
                            Units.formatRounded(timeout));
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void closeQuietly(java.nio.channels.Channel ch) {
        if (ch == null) {
            return;
        }
        try {
            ch.close();
        } catch (IOException e) {
            LOG.debug("rank {}: closing a bulk-lane socket failed", host.rank(), e);
        }
    }
}
