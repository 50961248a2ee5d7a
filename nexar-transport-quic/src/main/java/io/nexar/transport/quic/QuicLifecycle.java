package io.nexar.transport.quic;

import io.nexar.ClusterFormationException;
import io.nexar.CommunicatorClosedException;
import io.nexar.internal.config.Units;
import io.nexar.internal.protocol.GoodbyeReason;
import io.nexar.internal.transport.Newcomer;
import io.nexar.internal.util.Deadline;
import io.nexar.transport.quic.bulk.Addresses;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life cycle of a {@link QuicTransport}: binding its sockets, forming its links (connect, and admitting workers
 * into the running cluster), planning its certificate's renewal and warning, and shutting it down.
 *
 * <p>Stateless: the transport owns every field these methods read and write (its endpoint, its links and peer table,
 * its world size, whether connect was called, its closing flag and reason, the certificate renewal), under the
 * transport's monitor where the transport's own methods used it: the endpoint, {@code connectCalled}, the world size
 * and the published table change only while holding it, and the links before the table (see {@link PeerLinks}).
 * {@link #bind} runs under that monitor (its caller, {@link QuicTransport#bind}, is synchronized); the others take it
 * only around those changes and never while they wait for peers. None runs on the send or receive path.
 */
final class QuicLifecycle {
    private static final Logger LOG = LoggerFactory.getLogger(QuicTransport.class);

    private QuicLifecycle() {
    }

    /** {@link QuicTransport#bind}; under the transport's monitor. */
    static java.net.InetSocketAddress bind(QuicTransport t) {
        if (t.endpoint != null || t.closing.get()) {
            throw new IllegalStateException("bind() may be called once, before close()");
        }
        try {
            t.endpoint = t.listeners != null
                    ? QuicEndpoint.bind(t, t.slot, t.listeners, t.tuning, t.bulkOptions, t.config.closeTimeout())
                    : QuicEndpoint.bind(t, t.slot, t.bindAddress, t.tuning, t.bulkOptions, t.config.closeTimeout());
        } catch (Exception e) {
            t.closing.set(true);
            t.closed.complete(null);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new ClusterFormationException(t.context(-1), "failed: cannot bind UDP "
                    + Addresses.format(t.bindAddress) + ": " + e, e);
        }
        LOG.debug("rank {} listens on QUIC {} ({})", t.rank, Addresses.format(t.endpoint.localAddress()),
                t.endpoint.describe());
        return t.endpoint.localAddress();
    }

    /** {@link QuicTransport#connect} and {@link QuicTransport#connectAdmitted}: a full table, or a sparse one. */
    static void connect(QuicTransport t, List<PeerInfo> peers, Deadline deadline, boolean sparse) {
        t.assertNotEventLoop();
        PeerTable table;
        PeerLink[] all;
        synchronized (t) {
            if (t.endpoint == null || t.connectCalled || t.closing.get()) {
                throw new IllegalStateException("connect() may be called once, after bind() and before close()");
            }
            t.connectCalled = true;
            table = sparse ? PeerTable.sparse(peers, t.rank, t.worldSize, t.credentials.memberId())
                    : PeerTable.of(peers, t.rank, t.worldSize, t.credentials.memberId());
            all = t.links.keepListed(table, t.worldSize);
            t.links.publish(table);
        }
        t.links.tableKnown(table);
        List<PeerLink> dialled = t.links.dialHigher(t.endpoint, all, table, deadline);
        // Each connection heartbeats (and watches its peer's) from the moment it is ready, not once every link and
        // bulk lane is: on a lossy link the others can take seconds (QUIC or SYN retransmits), and a peer whose own
        // formation finished earlier already counts our silence.
        synchronized (t) {
            if (!t.closing.get()) {
                t.endpoint.startHeartbeats(t.config.heartbeatInterval(), t.config.heartbeatTimeout());
            }
        }
        PeerTable known = table;
        Formation.await(t, all, deadline, t.config.heartbeatTimeout(), r -> {
            PeerInfo p = known.get(r);
            return p == null ? null : p.bulkAddress();
        });
        t.endpoint.connectBulk(dialled, table, deadline);
        watchCertificateLife(t);
    }

    /**
     * Plans the certificate's renewal at two thirds of its life and the warning at 80% ({@link CertificateRenewal}).
     * On the endpoint's event loop, cancelled at close: {@code CompletableFuture.delayedExecutor} (a JVM-wide timer)
     * kept every closed transport, its connections and their buffers reachable until the warning's time, hours away.
     */
    private static void watchCertificateLife(QuicTransport t) {
        QuicEndpoint e;
        synchronized (t) {
            e = t.closing.get() || t.certificateRenewal != null ? null : t.endpoint;
        }
        if (e == null) {
            return;
        }
        var renewal = new CertificateRenewal(t.rank, t.slot, t.renewer, e::scheduleOnce);
        t.certificateRenewal = renewal;
        renewal.start();
        if (t.closing.get()) {
            renewal.stop();
        }
    }

    /** {@link QuicTransport#admit} and {@link QuicTransport#admitLinks}: the world grows to at least worldSize. */
    static void admit(QuicTransport t, List<Newcomer> newcomers, int worldSize, Deadline deadline) {
        admit(t, newcomers, worldSize, () -> { }, deadline);
    }

    /**
     * Like {@link #admit(QuicTransport, List, int, Deadline)}, running {@code listed} once the new peers are in the
     * peer table (a dial from them is accepted from then on), before dialling and waiting: a recovery's bridge
     * ({@link QuicTransport#linkMembers}) answers a lower peer's link offer there.
     */
    static void admit(QuicTransport t, List<Newcomer> newcomers, int worldSize, Runnable listed, Deadline deadline) {
        t.assertNotEventLoop();
        var infos = new ArrayList<PeerInfo>(newcomers.size());
        for (Newcomer n : newcomers) {
            infos.add(PeerDescriptor.decode(n));
        }
        PeerLink[] added;
        PeerTable table;
        synchronized (t) {
            PeerTable now = t.links.table();
            if (t.closing.get() || now == null) {
                throw new CommunicatorClosedException(t.context(-1), "failed: cannot admit workers: the transport"
                        + " is " + (t.closing.get() ? "closed" : "not connected"));
            }
            int size = Math.max(t.worldSize, worldSize);
            for (PeerInfo p : infos) {
                size = Math.max(size, p.rank() + 1);
            }
            table = now.with(infos, size, t.rank, t.credentials.memberId());
            added = t.links.grow(infos, size); // the links before the table: see PeerLinks
            t.worldSize = size;
            t.links.publish(table);
        }
        listed.run();
        List<PeerLink> dialled = t.links.dialHigher(t.endpoint, added, table, deadline);
        Formation.await(t, added, deadline);
        t.endpoint.connectBulk(dialled, table, deadline);
        LOG.info("grow: rank {}: connected to world ranks {} admitted into the running cluster", t.rank,
                infos.stream().map(PeerInfo::rank).toList());
    }

    /** {@link QuicTransport#close}, {@link QuicTransport#fail} and {@link QuicTransport#failAfter}: the first wins. */
    static void shutDown(QuicTransport t, GoodbyeReason reason, String detail) {
        t.assertNotEventLoop();
        if (!t.closing.compareAndSet(false, true)) {
            t.closed.join();
            return;
        }
        t.closedWhy = reason == GoodbyeReason.CLOSE ? "the transport was closed" : "this rank failed: " + detail;
        var renewal = t.certificateRenewal;
        if (renewal != null) {
            renewal.stop();
        }
        // Peers get most of close.timeout to read what we sent; stopping the event loops gets the rest.
        Duration total = t.config.closeTimeout();
        Duration forLoops = total.dividedBy(4).compareTo(Duration.ofSeconds(1)) < 0 ? total.dividedBy(4)
                : Duration.ofSeconds(1);
        QuicEndpoint e;
        synchronized (t) {
            e = t.endpoint;
        }
        if (e == null && t.listeners != null) {
            t.listeners.close(); // never taken over: release the ports and their event loops
        }
        try {
            t.links.tableKnown(null);
            t.links.downAll("is unreachable (this rank closed its transport)");
            if (e != null) {
                e.leaveAll(reason, detail, Deadline.after(total.minus(forLoops)));
            }
        } finally {
            try {
                if (e != null && !e.shutdown(forLoops)) {
                    LOG.warn("rank {}: QUIC event loops did not stop within {}", t.rank, Units.formatRounded(total));
                }
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            } finally {
                t.closed.complete(null);
            }
        }
    }
}
