package io.nexar.transport.quic;

import io.nexar.ClusterFormationException;
import io.nexar.internal.config.Units;
import io.nexar.internal.util.Deadline;
import io.nexar.transport.quic.bulk.Addresses;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Waits for every link of a transport to become ready, and turns what went wrong into one
 * {@link ClusterFormationException}: the first link that failed or whose peer was lost after it was ready (fail fast,
 * naming the rank and why), or, at the
 * deadline, the ranks still missing together with every connection attempt that was refused (an attempt with a bad
 * certificate does not stop formation: the genuine peer may still connect).
 *
 * <p>A peer that got the peer table and then died (or froze) before any rank reached it has no link that could be
 * lost, and nobody would notice it before the deadline. So formation also gives up, naming the ranks still missing,
 * once {@code reachTimeout} (the heartbeat timeout) passed without any link of this rank becoming ready: a living
 * peer that holds the same table answers within that time, as it answers heartbeats within it. The window opens at
 * this rank's first ready link (before it, a slow start of this process, its first handshake and native library,
 * cannot be told from a dead peer: the deadline applies) and starts again at each link that becomes ready, so a slow
 * machine that makes progress is not cut short (issue 16). In a world of three or more every survivor has a link to
 * another survivor, which opens the window; in a world of two the survivor waits for the deadline.
 *
 * <p>A peer that is alive but starved of CPU (a loaded machine) can take longer than the heartbeat timeout to dial
 * (issue 16: one of 43 kill trials failed so). So when the window closes, each missing peer's TCP bulk-lane listener
 * is probed ({@link ListenerProbe}): if every one is still held by its process, the peer is slow, not gone, and the
 * window starts again (formation's deadline judges it); if one refuses, its process is gone and formation fails at
 * once, naming it; without an answer (no bulk lane, host down, filtered) formation fails as before.
 */
final class Formation {
    private static final Logger LOG = LoggerFactory.getLogger(Formation.class);
    /** The longest a probe of a missing peer's listener may take. */
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);

    private Formation() {
    }

    /** Waits without the progress window (growth: the members' collective timeout bounds it). */
    static void await(QuicTransport transport, PeerLink[] links, Deadline deadline) {
        await(transport, links, deadline, null, null);
    }

    /**
     * Waits until every link is ready; see the class comment.
     *
     * @param reachTimeout how long formation waits without any link becoming ready; null for no such bound
     * @param listeners each rank's TCP bulk-lane address (null where it has none), probed when the window closes; null
     *        for no probes
     */
    static void await(QuicTransport transport, PeerLink[] links, Deadline deadline, Duration reachTimeout,
                      IntFunction<InetSocketAddress> listeners) {
        var progress = new AtomicLong(); // 0 until the first link is ready
        var firstFailure = new CompletableFuture<PeerLink.FormationFailure>();
        var readies = new ArrayList<CompletableFuture<Void>>();
        for (PeerLink l : links) {
            if (l != null) {
                readies.add(l.ready());
                l.ready().whenComplete((v, e) -> {
                    progress.set(Math.max(1, System.nanoTime()));
                    if (e != null) {
                        firstFailure.complete(unwrap(e, l.peer));
                    }
                });
                // A peer lost after its link was ready fails formation too: one that died while the others were
                // still connecting would otherwise leave them waiting for the deadline, and a survivor that saw it
                // die fails its formation, which its other peers then see (issue 16).
                l.lost().thenRun(() -> firstFailure.complete(new PeerLink.FormationFailure(l.peer,
                        String.valueOf(l.downReason()))));
            }
        }
        var all = CompletableFuture.allOf(readies.toArray(CompletableFuture[]::new));
        var done = CompletableFuture.anyOf(all, firstFailure);
        try {
            while (true) {
                long wait = deadline.remainingNanos();
                long last = progress.get();
                if (reachTimeout != null && last == 0) {
                    wait = Math.min(wait, reachTimeout.toNanos()); // look again once a first link may be ready
                } else if (reachTimeout != null) {
                    long quietEnds = last + reachTimeout.toNanos() - System.nanoTime();
                    if (quietEnds <= 0 && wait > 0) {
                        if (!allListening(transport, links, reachTimeout, deadline, listeners)) {
                            throw unreached(transport, links, reachTimeout);
                        }
                        progress.set(System.nanoTime()); // slow, not gone: a new window
                        continue;
                    }
                    wait = Math.min(wait, quietEnds);
                }
                try {
                    done.get(Math.max(0, wait), TimeUnit.NANOSECONDS);
                    break;
                } catch (TimeoutException e) {
                    if (deadline.remainingNanos() <= 0) {
                        throw e;
                    }
                }
            }
        } catch (TimeoutException e) {
            throw timedOut(transport, links, deadline);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClusterFormationException(transport.context(-1), "failed: interrupted while connecting", e);
        } catch (ExecutionException e) {
            // a link failed: reported below
        }
        PeerLink.FormationFailure f = firstFailure.getNow(null);
        if (f == null) {
            for (PeerLink l : links) { // allOf failed before our callback ran
                if (l != null && l.ready().isCompletedExceptionally()) {
                    f = unwrap(l.ready().handle((v, e) -> e).join(), l.peer);
                    break;
                }
            }
        }
        if (f != null) {
            throw new ClusterFormationException(transport.context(f.peer), "failed: " + f.getMessage());
        }
    }

    private static ClusterFormationException timedOut(QuicTransport transport, PeerLink[] links, Deadline deadline) {
        List<Integer> missing = missing(links);
        var sb = new StringBuilder("failed: ");
        sb.append(missing.size() == 1 ? "rank " + missing.getFirst() + " was" : "ranks " + join(missing) + " were")
                .append(" not connected within ").append(deadline.timeout().toMillis()).append("ms");
        List<String> refused = transport.refusals();
        if (!refused.isEmpty()) {
            sb.append("; failed attempts: ").append(String.join("; ", refused));
        }
        return new ClusterFormationException(transport.context(missing.isEmpty() ? -1 : missing.getFirst()),
                sb.toString());
    }

    private static ClusterFormationException unreached(QuicTransport transport, PeerLink[] links, Duration timeout) {
        List<Integer> missing = missing(links);
        String who = missing.size() == 1 ? "rank " + missing.getFirst() + " was" : "ranks " + join(missing) + " were";
        return new ClusterFormationException(transport.context(missing.isEmpty() ? -1 : missing.getFirst()),
                "failed: " + who + " not reached, and no other link became ready, within heartbeat.timeout ("
                        + Units.formatRounded(timeout) + "): " + (missing.size() == 1 ? "it" : "they")
                        + " died or stopped after the seed handed out the peer table, or cannot be reached at "
                        + (missing.size() == 1 ? "its address" : "their addresses") + " in the table");
    }

    /**
     * Probes the listener of every missing rank: true if each is held by its process (then it is slow, not gone); a
     * refusal fails formation at once, naming the rank; false if any gave no answer or has no listener.
     */
    private static boolean allListening(QuicTransport transport, PeerLink[] links, Duration reachTimeout,
                                        Deadline deadline, IntFunction<InetSocketAddress> listeners) {
        List<Integer> missing = missing(links);
        if (listeners == null || missing.isEmpty()) {
            return false;
        }
        for (int peer : missing) {
            InetSocketAddress address = listeners.apply(peer);
            ListenerProbe.Answer answer = address == null ? ListenerProbe.Answer.UNKNOWN
                    : ListenerProbe.probe(address, PROBE_TIMEOUT);
            if (answer == ListenerProbe.Answer.REFUSED) {
                throw new ClusterFormationException(transport.context(peer), "failed: rank " + peer + " was not"
                        + " reached within heartbeat.timeout (" + Units.formatRounded(reachTimeout) + ") and its"
                        + " bulk-lane port " + Addresses.format(address) + " refuses connections: its process is gone"
                        + " (it died after the seed handed out the peer table)");
            }
            if (answer != ListenerProbe.Answer.LISTENING) {
                return false;
            }
        }
        int waits = transport.slowPeerWaits.incrementAndGet();
        String what = "rank " + transport.rank() + ": " + (missing.size() == 1 ? "rank " + missing.getFirst()
                : "ranks " + join(missing)) + " not reached within heartbeat.timeout (" + Units.formatRounded(
                reachTimeout) + "), but " + (missing.size() == 1 ? "its process holds its" : "their processes hold"
                + " their") + " bulk-lane listener (slow or starved, not gone): waiting up to formation's deadline ("
                + Units.formatRounded(Duration.ofNanos(Math.max(0, deadline.remainingNanos()))) + " left)";
        if (waits == 1) {
            LOG.warn(what);
        } else {
            LOG.debug(what);
        }
        return true;
    }

    private static List<Integer> missing(PeerLink[] links) {
        var missing = new ArrayList<Integer>();
        for (PeerLink l : links) {
            if (l != null && !l.ready().isDone()) {
                missing.add(l.peer);
            }
        }
        return missing;
    }

    private static PeerLink.FormationFailure unwrap(Throwable e, int peer) {
        Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return t instanceof PeerLink.FormationFailure f ? f : new PeerLink.FormationFailure(peer, "failed: " + t);
    }

    private static String join(List<Integer> ranks) {
        var sb = new StringBuilder();
        for (int i = 0; i < ranks.size(); i++) {
            sb.append(i == 0 ? "" : i == ranks.size() - 1 ? " and " : ", ").append(ranks.get(i));
        }
        return sb.toString();
    }
}
