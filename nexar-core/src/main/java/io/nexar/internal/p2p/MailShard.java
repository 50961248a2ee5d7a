package io.nexar.internal.p2p;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One communicator's point-to-point receive state on one process, its shard of the {@link Mailbox}: its pairs
 * (sender order), its {@link Matcher} (posted receives and unmatched messages), its blocking probes and whether it was
 * closed here, all guarded by its own {@link #lock}, so that two communicators' receives and arrivals never wait for
 * each other. What the shards share belongs to the mailbox and is thread-safe on its own, taken inside a shard's lock
 * and never the other way round: the {@link UnexpectedStore} (whose lock is where refused senders wait for room), the
 * peers down, and why the mailbox was closed or aborted.
 */
final class MailShard {
    /** The communicator's id. */
    final int id;
    /** The mailbox whose process-wide parts this shard shares. */
    final Mailbox mailbox;
    /** Guards every field below and the receives posted here; never held across I/O or while waiting for room. */
    final ReentrantLock lock = new ReentrantLock();
    /** Signalled when a blocking probe may see a message, or a receive ending early may stop waiting for a claim. */
    final Condition changed = lock.newCondition();
    final Map<Integer, PairState> pairs = new HashMap<>();
    final Matcher matcher = new Matcher();
    /**
     * Blocking probes waiting, each a one-element array holding its world source or ANY (every probe of a shard is of
     * its communicator; the array gives each probe its own identity for removal): their senders may exceed the store
     * bound.
     */
    final List<int[]> probes = new ArrayList<>();
    /** Why the communicator was closed here (a sub-communicator), or null. */
    String closed;

    MailShard(Mailbox mailbox, int id) {
        this.mailbox = mailbox;
        this.id = id;
    }

    /** The pair state of world rank {@code src}'s messages on this communicator, created at its first message. */
    PairState pair(int src) {
        return pairs.computeIfAbsent(src, k -> new PairState());
    }
}
