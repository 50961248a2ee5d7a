package io.nexar.internal.p2p;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * MPI's matching rules over the posted receives and the unmatched messages of one communicator's shard of a
 * {@link Mailbox} ({@link MailShard}), wildcards included. Guarded by the shard's lock.
 *
 * <pre>
 *   posted receives:  by channel (comm, src, tag), FIFO      + wildcard receives (ANY source or tag), in post order
 *   unmatched:        by channel (comm, src, tag), by sequence number; matchable ones carry a match stamp
 * </pre>
 *
 * <p>A message is matchable once every earlier message of its sender on its communicator has started to arrive; it
 * then gets the next match stamp, so stamps follow the send order of each sender (the non-overtaking rule) and the
 * arrival order across senders. Every receive gets a post stamp. The invariant after every call: no posted receive
 * matches a matchable unmatched message. A new receive therefore takes the matching message with the lowest match
 * stamp, and a message that became matchable goes to the matching receive with the lowest post stamp.
 */
final class Matcher {
    private final Map<ChannelKey, ArrayDeque<PendingReceive>> posted = new HashMap<>();
    /** Receives with a wildcard source or tag, in post order. */
    private final List<PendingReceive> wildcards = new ArrayList<>();
    private final Map<ChannelKey, TreeMap<Long, InboundMessage>> unmatched = new HashMap<>();
    private long nextStamp = 1;

    /** Keeps {@code m}, whose first chunk arrived and which no receive has taken, on its channel. */
    void keep(int communicator, InboundMessage m) {
        unmatched.computeIfAbsent(new ChannelKey(communicator, m.src, m.tag), k -> new TreeMap<>()).put(m.seq, m);
    }

    /**
     * {@code m} (kept, not yet matchable) became matchable: stamps it and takes it for the earliest posted matching
     * receive, which is removed from the posted ones.
     *
     * @return that receive, or null (the message stays unmatched)
     */
    PendingReceive matchable(int communicator, InboundMessage m) {
        m.matchStamp = nextStamp++;
        var key = new ChannelKey(communicator, m.src, m.tag);
        var q = posted.get(key);
        PendingReceive best = q == null ? null : q.peekFirst();
        PendingReceive wild = null;
        for (PendingReceive w : wildcards) {
            if (w.communicator == communicator && w.matches(m.src, m.tag)) {
                wild = w;
                break;
            }
        }
        if (wild != null && (best == null || wild.postStamp < best.postStamp)) {
            best = wild;
            wildcards.remove(wild);
        } else if (best != null) {
            q.pollFirst();
            if (q.isEmpty()) {
                posted.remove(key);
            }
        }
        if (best != null) {
            removeUnmatched(key, m);
        }
        return best;
    }

    /**
     * The posted receive that a message from world rank {@code src} with {@code tag}, becoming matchable now, would
     * go to ({@link #matchable} would take it), without taking it; null if none.
     */
    PendingReceive firstPosted(int communicator, int src, int tag) {
        var q = posted.get(new ChannelKey(communicator, src, tag));
        PendingReceive best = q == null ? null : q.peekFirst();
        for (PendingReceive w : wildcards) {
            if (w.communicator == communicator && w.matches(src, tag)) {
                return best == null || w.postStamp < best.postStamp ? w : best;
            }
        }
        return best;
    }

    /**
     * The matchable unmatched message that {@code r} takes (the lowest match stamp), removed from the unmatched ones.
     *
     * @return that message, or null (then {@link #post} the receive)
     */
    InboundMessage take(PendingReceive r) {
        var key = find(r.communicator, r.worldSrc, r.tag);
        if (key == null) {
            return null;
        }
        InboundMessage m = unmatched.get(key).firstEntry().getValue();
        removeUnmatched(key, m);
        return m;
    }

    /** The message a receive of (communicator, world source or ANY, tag or ANY) would take now, or null. */
    InboundMessage peek(int communicator, int worldSrc, int tag) {
        var key = find(communicator, worldSrc, tag);
        return key == null ? null : unmatched.get(key).firstEntry().getValue();
    }

    private ChannelKey find(int communicator, int worldSrc, int tag) {
        if (worldSrc != PendingReceive.ANY && tag != PendingReceive.ANY) {
            var key = new ChannelKey(communicator, worldSrc, tag);
            var u = unmatched.get(key);
            return u != null && u.firstEntry().getValue().matchStamp > 0 ? key : null;
        }
        ChannelKey best = null;
        long bestStamp = Long.MAX_VALUE;
        for (var e : unmatched.entrySet()) {
            ChannelKey k = e.getKey();
            if (k.communicator != communicator || (worldSrc != PendingReceive.ANY && k.src != worldSrc)
                    || (tag != PendingReceive.ANY && k.tag != tag)) {
                continue;
            }
            // the first of a channel is its sender's oldest: if it is not matchable, nothing after it is
            long stamp = e.getValue().firstEntry().getValue().matchStamp;
            if (stamp > 0 && stamp < bestStamp) {
                bestStamp = stamp;
                best = k;
            }
        }
        return best;
    }

    private void removeUnmatched(ChannelKey key, InboundMessage m) {
        var u = unmatched.get(key);
        u.remove(m.seq);
        if (u.isEmpty()) {
            unmatched.remove(key);
        }
    }

    /** Posts {@code r}, which found no message ({@link #take} returned null). */
    void post(PendingReceive r) {
        r.postStamp = nextStamp++;
        if (r.worldSrc == PendingReceive.ANY || r.tag == PendingReceive.ANY) {
            wildcards.add(r);
        } else {
            posted.computeIfAbsent(new ChannelKey(r.communicator, r.worldSrc, r.tag), k -> new ArrayDeque<>()).add(r);
        }
    }

    /** Removes {@code r} from the posted receives, if it is there. */
    void unpost(PendingReceive r) {
        if (r.worldSrc == PendingReceive.ANY || r.tag == PendingReceive.ANY) {
            wildcards.remove(r);
            return;
        }
        var key = new ChannelKey(r.communicator, r.worldSrc, r.tag);
        var q = posted.get(key);
        if (q != null && q.remove(r) && q.isEmpty()) {
            posted.remove(key);
        }
    }

    /** True if a posted receive of {@code communicator} may take a message from world rank {@code src}. */
    boolean awaits(int communicator, int src) {
        for (PendingReceive w : wildcards) {
            if (w.communicator == communicator && (w.worldSrc == PendingReceive.ANY || w.worldSrc == src)) {
                return true;
            }
        }
        for (ChannelKey k : posted.keySet()) {
            if (k.communicator == communicator && k.src == src) {
                return true;
            }
        }
        return false;
    }

    /** Every posted receive. */
    void forEachPosted(Consumer<PendingReceive> action) {
        posted.values().forEach(q -> q.forEach(action));
        wildcards.forEach(action);
    }

    /** Removes the posted receives {@code which} accepts, then hands each to {@code then}. */
    void unpostIf(Predicate<PendingReceive> which, Consumer<PendingReceive> then) {
        List<PendingReceive> gone = new ArrayList<>();
        for (Iterator<ArrayDeque<PendingReceive>> it = posted.values().iterator(); it.hasNext(); ) {
            var q = it.next();
            q.removeIf(r -> which.test(r) && gone.add(r));
            if (q.isEmpty()) {
                it.remove();
            }
        }
        wildcards.removeIf(r -> which.test(r) && gone.add(r));
        gone.forEach(then);
    }

    /** Forgets the unmatched messages of {@code communicator}. */
    void dropUnmatched(int communicator) {
        unmatched.keySet().removeIf(k -> k.communicator == communicator);
    }

    /** Forgets everything. */
    void clear() {
        posted.clear();
        wildcards.clear();
        unmatched.clear();
    }

    private record ChannelKey(int communicator, int src, int tag) {
    }
}
