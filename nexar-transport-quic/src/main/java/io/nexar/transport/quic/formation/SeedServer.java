package io.nexar.transport.quic.formation;

import io.nexar.ClusterFormationException;
import io.nexar.ErrorContext;
import io.nexar.Operation;
import io.nexar.internal.config.Units;
import io.nexar.internal.protocol.JoinRefusal;
import io.nexar.transport.quic.MemberCredentials;
import io.nexar.transport.quic.PeerInfo;
import io.nexar.transport.quic.security.JoinString;
import io.nexar.transport.quic.security.TlsMaterial;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The seed: accepts {@code worldSize} workers over TCP + TLS 1.3, enrols each (token proof, CSR, certificate, see
 * {@link SeedConnection}), assigns ranks (requested ranks honoured, the rest in arrival order) and hands every
 * worker the peer table. The seed is not on the data path: after formation it refuses late joiners ("cluster
 * already formed") unless they ask to join the running cluster (ELASTIC_JOIN_REQUEST): those wait until rank 0 of
 * the cluster polls at a {@code grow()} (GROW_POLL), which admits them as the next world ranks.
 *
 * <p>A bad request (wrong token, bad CSR, replayed key, unavailable rank, oversized frame) is refused with a reason
 * on that connection only, logged and kept in {@link #refusals()}; the cluster keeps forming. If the formation
 * deadline passes first, every waiting worker is refused with, for example, "formation deadline passed: 2 of 4
 * workers joined", and {@link #awaitFormed} reports the same.
 *
 * <p>Threads: one virtual thread accepts, one virtual thread serves each connection, one waits for the deadline.
 * All methods are thread-safe; {@link #close()} is idempotent and bounded.
 */
public final class SeedServer implements AutoCloseable {

    /** A refused join, as the seed saw it. */
    public record Refusal(String remote, JoinRefusal code, String reason) {
    }

    private static final Logger LOG = LoggerFactory.getLogger(SeedServer.class);
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(3);

    private final SeedOptions options;
    private final SSLServerSocket listener;
    private final FormationState state;
    private final Semaphore slots;
    private final Map<SeedConnection, Thread> connections = new ConcurrentHashMap<>();
    private final List<Refusal> refusals = new CopyOnWriteArrayList<>();
    private final CompletableFuture<List<PeerInfo>> result = new CompletableFuture<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final java.util.concurrent.atomic.AtomicLong evictions = new java.util.concurrent.atomic.AtomicLong();
    private final JoinString joinString;
    private final Thread acceptor;
    private final Thread deadline;

    private SeedServer(SeedOptions options, SSLServerSocket listener) {
        this.options = options;
        this.listener = listener;
        this.state = new FormationState(options.worldSize());
        this.slots = new Semaphore(options.maxPendingConnections());
        this.joinString = new JoinString(advertisedHost(options, listener.getInetAddress()), listener.getLocalPort(),
                options.token(), options.ca().fingerprint());
        state.formed().thenAccept(peers -> {
            LOG.info("seed: cluster of {} formed", options.worldSize());
            result.complete(peers);
        });
        this.acceptor = Thread.ofVirtual().name("nexar-seed-accept").unstarted(this::acceptLoop);
        this.deadline = Thread.ofVirtual().name("nexar-seed-deadline").unstarted(this::watchDeadline);
    }

    /**
     * Binds and starts a seed.
     *
     * @throws IOException if the address cannot be bound
     */
    public static SeedServer start(SeedOptions options) throws IOException {
        Duration validity = options.certValidity().compareTo(options.formationDeadline()) > 0
                ? options.certValidity() : options.formationDeadline().plusHours(1);
        MemberCredentials self = options.ca().issueSelf(validity);
        SSLContext context = TlsMaterial.sslContext(self, (TrustManagerFactory) null);
        var listener = (SSLServerSocket) context.getServerSocketFactory().createServerSocket();
        try {
            var params = new SSLParameters();
            params.setProtocols(new String[] {TlsMaterial.TLS_VERSION});
            params.setNeedClientAuth(false); // workers have no certificate yet: they prove the token instead
            listener.setSSLParameters(params);
            listener.bind(options.bindAddress(), Math.max(50, options.worldSize()));
        } catch (IOException | RuntimeException e) {
            listener.close();
            throw new IOException("seed cannot listen on " + SeedOptions.format(options.bindAddress()) + ": "
                    + e.getMessage(), e);
        }
        var seed = new SeedServer(options, listener);
        seed.acceptor.start();
        seed.deadline.start();
        LOG.info("seed listening on {} for {} workers; CA {}; join: {}", SeedOptions.format(seed.boundAddress()),
                options.worldSize(), options.ca().fingerprint(), seed.joinString); // JoinString.toString hides the token
        return seed;
    }

    /** The join string, secret included: {@code nexar://HOST:PORT?token=...&ca=sha256:...}. */
    public String joinString() {
        return joinString.format();
    }

    /** The address the seed listens on, with the actual port. */
    public InetSocketAddress boundAddress() {
        return new InetSocketAddress(listener.getInetAddress(), listener.getLocalPort());
    }

    /** The options the seed runs with. */
    public SeedOptions options() {
        return options;
    }

    /** Refusals so far, oldest first. */
    public List<Refusal> refusals() {
        return List.copyOf(refusals);
    }

    /** Elastic workers waiting for the members' next grow(). */
    public int waiting() {
        return state.waiting();
    }

    /** Workers admitted so far. */
    public int joined() {
        return state.joined();
    }

    /**
     * Waits until every worker has joined and returns the peer table.
     *
     * @param timeout how long to wait (the formation deadline applies independently)
     * @return one entry per rank, in rank order
     * @throws ClusterFormationException if the formation deadline passed, the seed was closed, this wait timed out
     *         or was interrupted (the interrupt flag is kept)
     */
    public List<PeerInfo> awaitFormed(Duration timeout) {
        try {
            return result.get(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw (ClusterFormationException) e.getCause();
        } catch (TimeoutException e) {
            throw failure("cluster not formed within " + Units.formatRounded(timeout) + ": " + state.joined() + " of "
                    + options.worldSize() + " workers joined");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure("interrupted while waiting for the cluster to form");
        }
    }

    /**
     * Stops accepting, refuses workers still waiting ("seed is shutting down"), and waits a bounded time for the
     * connections to finish. Idempotent.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            listener.close();
        } catch (IOException e) {
            LOG.debug("closing the seed listener: {}", e.toString());
        }
        state.refuseWaiting(JoinRefusal.SHUTTING_DOWN, "seed is shutting down");
        FormationState.Refused r = state.fail(JoinRefusal.SHUTTING_DOWN, "seed is shutting down");
        if (r != null) {
            result.completeExceptionally(failure(r.reason()));
        }
        deadline.interrupt();
        long end = System.nanoTime() + CLOSE_WAIT.toNanos();
        joinAll(end);
        connections.keySet().forEach(SeedConnection::abort); // still running after the grace period
        joinAll(System.nanoTime() + TimeUnit.SECONDS.toNanos(1));
        try {
            acceptor.join(Duration.ofSeconds(1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------- package-private, for SeedConnection

    FormationState state() {
        return state;
    }

    void recordRefusal(String remote, JoinRefusal code, String reason) {
        refusals.add(new Refusal(remote, code, reason));
        LOG.warn("seed refused the join from {}: {} ({})", remote, reason, code);
    }

    /**
     * A worker left before formation, with {@code enrolled} workers enrolled before it: unless another takes its
     * place within {@link SeedOptions#vacancyTimeout()}, formation fails for everyone waiting ({@code reason}), within
     * that time rather than at the formation deadline.
     */
    void vacated(int enrolled, String reason) {
        CompletableFuture.delayedExecutor(options.vacancyTimeout().toNanos(), TimeUnit.NANOSECONDS).execute(() -> {
            FormationState.Refused r = state.failUnlessRefilled(enrolled, reason);
            if (r != null) {
                LOG.warn("seed: {}", r.reason());
                result.completeExceptionally(failure(r.reason()));
            }
        });
    }

    void connectionEnded(SeedConnection c) {
        if (connections.remove(c) != null) {
            slots.release();
        }
    }

    // ---------------------------------------------------------------- private

    private void acceptLoop() {
        while (!closed.get()) {
            SSLSocket socket;
            try {
                socket = (SSLSocket) listener.accept();
            } catch (IOException e) {
                if (!closed.get()) {
                    LOG.error("seed stopped accepting: {}", e.toString());
                }
                return;
            }
            if (closed.get() || !takeSlot()) {
                LOG.warn("seed is at its limit of {} pending connections, all of them proved the token; closing {}",
                        options.maxPendingConnections(), socket.getRemoteSocketAddress());
                closeQuietly(socket);
                continue;
            }
            var connection = new SeedConnection(this, socket);
            Thread t = Thread.ofVirtual().name("nexar-seed-conn-" + socket.getPort()).unstarted(connection);
            connections.put(connection, t);
            t.start();
        }
    }

    /**
     * A slot for a new connection. At the limit, the oldest connection that has not proved the join token yet (idle,
     * slow, or a stranger's) is closed and its slot passed on: a flood of connections that never speak cannot keep a
     * real worker out for the pre-authentication timeout ({@code ioTimeout}); only clients that proved the token are
     * never evicted (issue 16: 300 idle connections delayed formation from 4 s to 10.7 s).
     */
    private boolean takeSlot() {
        if (slots.tryAcquire()) {
            return true;
        }
        SeedConnection oldest = null;
        for (SeedConnection c : connections.keySet()) {
            if (!c.proven() && (oldest == null || c.acceptedNanos - oldest.acceptedNanos < 0)) {
                oldest = c;
            }
        }
        if (oldest != null && connections.remove(oldest) != null) { // its slot passes to the new connection
            long n = evictions.incrementAndGet();
            String text = "seed is at its limit of {} pending connections; closing the oldest that has not proved"
                    + " the join token, from {} ({} ms old; {} closed so far)";
            long age = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - oldest.acceptedNanos);
            if (n == 1 || n % 100 == 0) { // a flood would log a line per connection
                LOG.warn(text, options.maxPendingConnections(), oldest.remote(), age, n);
            } else {
                LOG.debug(text, options.maxPendingConnections(), oldest.remote(), age, n);
            }
            oldest.abort();
            return true;
        }
        return slots.tryAcquire(); // a connection ended meanwhile
    }

    private void watchDeadline() {
        try {
            state.formed().get(options.formationDeadline().toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            FormationState.Refused r = state.fail(JoinRefusal.DEADLINE_PASSED, "formation deadline passed");
            if (r != null) {
                LOG.warn("seed: {} (deadline {})", r.reason(), Units.formatRounded(options.formationDeadline()));
                result.completeExceptionally(failure(r.reason()));
            }
        } catch (InterruptedException | ExecutionException e) {
            // closed, or formed: nothing to do
        }
    }

    private void joinAll(long endNanos) {
        for (Thread t : List.copyOf(connections.values())) {
            long left = endNanos - System.nanoTime();
            if (left <= 0) {
                return;
            }
            try {
                t.join(Duration.ofNanos(left));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private ClusterFormationException failure(String detail) {
        return new ClusterFormationException(ErrorContext.of(Operation.FORMATION), "failed at the seed: " + detail);
    }

    private static void closeQuietly(SSLSocket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // refusing an excess connection; nothing to report
        }
    }

    /** The host to print: the configured one, the bound one, or for a wildcard bind a routable local address. */
    static String advertisedHost(SeedOptions options, InetAddress bound) {
        if (options.advertisedHost() != null) {
            return options.advertisedHost();
        }
        if (!bound.isAnyLocalAddress()) {
            return bound.getHostAddress();
        }
        InetAddress best = null;
        try {
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nif.isUp() || nif.isLoopback()) {
                    continue;
                }
                for (InetAddress a : Collections.list(nif.getInetAddresses())) {
                    if (a.isLinkLocalAddress() || a.isLoopbackAddress()) {
                        continue;
                    }
                    if (best == null || (a instanceof Inet4Address && !(best instanceof Inet4Address))) {
                        best = a;
                    }
                }
            }
        } catch (SocketException e) {
            LOG.debug("cannot list network interfaces: {}", e.toString());
        }
        String host = (best != null ? best : InetAddress.getLoopbackAddress()).getHostAddress();
        int scope = host.indexOf('%');
        return scope >= 0 ? host.substring(0, scope) : host;
    }
}
