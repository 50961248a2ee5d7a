package io.nexar.internal.p2p;

import static io.nexar.internal.p2p.MailboxFailures.protocol;

import io.nexar.CommunicatorClosedException;
import io.nexar.ErrorContext;
import io.nexar.NexarException;
import io.nexar.OperationCancelledException;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.Status;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.HangReports;
import io.nexar.internal.transport.InboundHandler;
import io.nexar.internal.transport.PayloadSink;
import io.nexar.internal.transport.SenderShare;
import io.nexar.internal.transport.Progress;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.Deadline;
import io.nexar.internal.util.ShardTable;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Point-to-point receive side of one process: pairs inbound {@link Message.Data} chunks with posted receives by
 * (communicator, source, tag), either of which a receive may leave open (wildcards), in the sender's sequence order.
 *
 * <pre>
 *   inbound chunk ──▶ pair (comm, src): seqs arrived contiguously?  ──▶ {@link Matcher}
 *                                                                     ├─ posted receives (per channel; wildcards)
 *                                                                     └─ unmatched messages by channel and seq
 * </pre>
 *
 * <p>Ordering: a sender numbers its messages to each (receiver, communicator) 0, 1, 2, ... A message becomes
 * matchable once every lower-numbered message from that sender has started to arrive, so a receive takes the
 * oldest matching message of that sender even when lanes reorder messages (MPI's non-overtaking rule); the
 * {@link Matcher} applies MPI's rules across senders and posted receives (docs/point-to-point.md).
 *
 * <p>Memory: chunks of unmatched messages are copied into the unexpected store, bounded by {@code maxStoredBytes}.
 * A chunk that does not fit is refused ({@link Delivery#FULL}) and the transport retries later, except the first
 * chunk of the oldest missing message of a pair while later messages of the pair wait for it, or a posted receive or
 * a blocking probe may take a message from that sender (a wildcard source counts for every sender), so that
 * concurrent senders and lanes cannot deadlock each other; the store therefore exceeds its bound by at most one chunk
 * per sender at a time. Once a receive is bound to a message, its chunks go straight into the receive's buffer:
 * copied from the frame, or, for a large chunk on a transport that reads frames piece by piece, written there as its
 * bytes arrive ({@link #claim}, {@link MailboxClaims}); a large chunk that a posted receive takes on arrival is bound
 * and claimed when its header is in.
 * The number of unmatched messages is bounded too ({@link UnexpectedStore}), with the same exceptions: empty
 * messages take no bytes, and a member flooding them would otherwise grow the store's records without end. No sender
 * may hold more than half of either bound ({@link SenderShare}), with the same exceptions: a flooding member fills its
 * half and the other senders keep theirs.
 *
 * <p>Receives are posted ({@link #post}), then awaited, polled, cancelled or expired at their deadline; probes
 * ({@link #probe}, {@link #iprobe}) look at the matchable messages without taking them.
 *
 * <p>Threading: each communicator is a shard ({@link MailShard}) with its own lock, which guards its pairs, its
 * {@link Matcher} and its receives; it is held while a small chunk is copied into a user buffer (so a receive that
 * timed out never sees a late write) and never across I/O or a blocking wait on another object; two communicators'
 * receives and arrivals never wait for each other. A claimed chunk is written without it; a receive that ends early
 * waits (lock released) for the piece being written before its outcome is set ({@link MailboxClaims#stop}). What the
 * shards share is thread-safe on its own and taken inside a shard's lock, never the reverse: the
 * {@link UnexpectedStore}'s counts and bounds (refused senders wait on its {@link io.nexar.internal.util.RoomSignal},
 * holding no shard's lock), the peers down, why the mailbox was closed or aborted. A peer down (a failure or a
 * GOODBYE taken in order), an abort or a close is published before the shards are visited, each under its lock; a
 * receive is checked against those facts and registered under its shard's lock in one step, so either it sees the
 * fact or the visit finds it.
 *
 * <p>The mailbox owns all its tables (its shards, with a {@link PairState} per sender and the {@link Matcher}; the
 * {@link UnexpectedStore}'s counts); stateless helpers work on them under the shards' locks: {@link MailboxArrivals} (chunks checked, stored or copied,
 * messages matched and bound), {@link MailboxClaims} (large chunks written by the transport), {@link MailboxFailures}
 * (how receives fail or end other than by completing) and {@link MailboxWaits} (waits and probes).
 */
public final class Mailbox implements InboundHandler, io.nexar.internal.transport.ReceiveSide {
    // Package-private for the Mailbox* helpers. The per-communicator tables are in each MailShard, under its lock.
    /** Where a receive that waits longer than {@code hang.report.after} reports; null for none. */
    volatile HangReports hangs;
    final ShardTable<MailShard> shards = new ShardTable<>(s -> s.id, s -> s.lock,
            id -> new MailShard(this, id));
    /** World ranks down, with why (first reason wins); published before the shards are visited. */
    final Map<Integer, String> downPeers = new ConcurrentHashMap<>();
    /** The accounting of unmatched messages: bytes, records and each sender's share, with their bounds. */
    final UnexpectedStore store;
    /** Set once (under the shard table's monitor), before the shards are visited. */
    volatile boolean closed;
    volatile String closedReason;
    /** Set by {@link #abortAll}: receives posted later fail at once with it. */
    volatile String abortedDetail;
    /** Who reads the transport while a receive waits (see {@link Progress}). */
    volatile Progress progress = Progress.NONE;
    volatile Transport end; // named by protocol errors (its rank and world size); null until servedBy

    /** @param maxStoredBytes bound of the unexpected-message store (setting {@code unexpected.max.bytes}) */
    public Mailbox(long maxStoredBytes) {
        this.store = new UnexpectedStore(maxStoredBytes);
    }

    /**
     * Receives the next message of (communicator, world rank {@code worldSrc}, tag) into {@code buffer}. Messages are
     * matched by world rank; errors name {@code context}'s peer, the source in the communicator's numbering (and the
     * world rank when it differs).
     *
     * @return the number of bytes received
     */
    public long receiveFrom(int communicator, int worldSrc, int tag, MemorySegment buffer, Deadline deadline,
                            ErrorContext context) {
        return await(post(communicator, worldSrc, tag, null, buffer, context), deadline, null).byteSize();
    }

    /**
     * Posts a receive without waiting: it takes the oldest matchable message that matches it, or waits for one
     * ({@link #await}, {@link #cancel}, {@link #expire}).
     *
     * @param worldSrc the source's world rank, or {@link PendingReceive#ANY}
     * @param tag the tag, or {@link PendingReceive#ANY}
     * @param members the world rank of each rank of the communicator (to number a wildcard receive's source), or null
     *                if its numbering is the world's
     * @throws CommunicatorClosedException if the mailbox or the communicator is closed
     * @throws PeerFailedException if every pending receive was failed by {@link #abortAll}
     */
    public PendingReceive post(int communicator, int worldSrc, int tag, int[] members, MemorySegment buffer,
                               ErrorContext context) {
        MailShard s = shards.getOrCreate(communicator);
        var r = new PendingReceive(s, context, worldSrc, tag, members, buffer);
        s.lock.lock();
        try {
            MailboxFailures.refuseIfClosed(s, context); // checked and registered under one hold of the lock
            InboundMessage m = s.matcher.take(r);
            if (m != null) {
                MailboxArrivals.bind(s, r, m, s.pair(m.src));
            } else {
                s.matcher.post(r);
                String down = worldSrc == PendingReceive.ANY ? null : downPeers.get(worldSrc);
                if (down != null) {
                    s.matcher.unpost(r);
                    r.result.completeExceptionally(r.peerFailed(worldSrc, down));
                }
            }
            store.freed(); // a sender refused for lack of room may now be matched directly
        } finally {
            s.lock.unlock();
        }
        return r;
    }

    /**
     * Cancels {@code r} unless it ended: it fails with {@link OperationCancelledException}; a message it was bound to
     * loses the rest of its bytes, one it was not yet bound to stays for the next receive.
     *
     * @return true if this call ended it
     */
    public boolean cancel(PendingReceive r) {
        return MailboxFailures.cancel(r);
    }

    /**
     * The status of the message that a receive of (communicator, {@code worldSrc}, {@code tag}) would take now,
     * without taking it (MPI's {@code MPI_Iprobe}); never blocks.
     *
     * @param worldSrc a world rank or {@link PendingReceive#ANY}
     * @param tag a tag or {@link PendingReceive#ANY}
     * @param members the communicator's world ranks by rank, or null for the world's numbering
     * @return its status, or null if no such message is matchable
     * @throws CommunicatorClosedException if the mailbox or the communicator is closed
     */
    public Status iprobe(int communicator, int worldSrc, int tag, int[] members, ErrorContext context) {
        return MailboxWaits.iprobe(this, communicator, worldSrc, tag, members, context);
    }

    /**
     * Waits until a receive of (communicator, {@code worldSrc}, {@code tag}) could take a message and returns its
     * status without taking it (MPI's {@code MPI_Probe}). While it waits, the first chunk of the oldest missing
     * message from a sender it may match is taken even when the unexpected store is full (as for a posted receive).
     *
     * @return the status of that message
     * @throws OperationTimeoutException if {@code deadline} passes first
     * @throws PeerFailedException if the (specific) source fails, or every receive is failed by {@link #abortAll}
     * @throws CommunicatorClosedException if the mailbox or the communicator is closed
     * @throws OperationCancelledException if the thread is interrupted (its interrupt status is kept)
     */
    public Status probe(int communicator, int worldSrc, int tag, int[] members, Deadline deadline,
                        ErrorContext context) {
        return MailboxWaits.probe(this, communicator, worldSrc, tag, members, deadline, context);
    }

    /** Fails {@code r} with {@link OperationTimeoutException} if it has not ended and {@code deadline} passed. */
    public void expire(PendingReceive r, Deadline deadline) {
        MailboxWaits.expire(this, r, deadline);
    }

    /** Receives poll {@code p} for their messages before they sleep. Set once, before any receive. */
    public void drivenBy(Progress p) {
        progress = Objects.requireNonNull(p, "progress");
    }

    /**
     * Waits for {@code r} until it ends, its {@code deadline} passes (then it fails) or {@code waitLimit} passes
     * (then it stays pending).
     *
     * @param waitLimit when the caller stops waiting without failing the receive, or null
     * @return the message's status
     * @throws OperationTimeoutException if {@code deadline} passed (the receive failed) or {@code waitLimit} passed
     *         first (it is still pending)
     * @throws NexarException what the receive failed with, never a wrapper
     */
    public Status await(PendingReceive r, Deadline deadline, Deadline waitLimit) {
        return MailboxWaits.await(this, r, deadline, waitLimit);
    }

    /** Protocol errors name {@code t}'s rank and world size from now on (once, by the router's servedBy). */
    public void servedBy(Transport t) {
        end = t;
    }

    /** The hang reports this receive side reports to, or null. */
    public HangReports hangReports() {
        return hangs;
    }

    /** Receivers that wait longer than {@code hang.report.after} report through {@code h}. Set once. */
    public void reportsHangsTo(HangReports h) {
        hangs = h;
    }

    /** Lines describing the receives posted on this process, for a hang report; adds the world ranks they await. */
    public void describe(List<String> lines, Set<Integer> waitingFor) {
        MailboxWaits.describe(this, lines, waitingFor);
    }

    /**
     * Claims the receive buffer of a large chunk whose header arrived, when a receive takes it now (see
     * {@link MailboxClaims}); null otherwise, and the whole frame then comes through {@link #onMessage}.
     *
     * @param peer the world rank the chunk comes from
     * @param header the chunk's header, its payload empty
     * @param payloadBytes the size of the payload that follows
     * @return where to write the payload, or null
     */
    @Override
    public PayloadSink claim(int peer, Message.Data header, long payloadBytes) {
        return MailboxClaims.claim(this, peer, header, payloadBytes);
    }

    @Override
    public Delivery onMessage(int peer, Message message) {
        return switch (message) {
            case Message.Data d -> closed ? Delivery.ACCEPTED : onData(peer, d);
            case Message.Goodbye g -> { // in order: after the messages the peer sent before it
                MailboxFailures.peerDown(this, peer, g.reason().describe(g.detail()));
                yield Delivery.ACCEPTED;
            }
            case Message.Heartbeat _, Message.Hello _ -> Delivery.ACCEPTED;
            // enrolment belongs to the seed's TLS connection only; on a peer link it is a protocol violation
            case io.nexar.internal.protocol.EnrolmentMessage e -> throw protocol(this, null, peer, "sent "
                    + e.type() + " on a peer link: enrolment messages travel only on the seed's connection");
            // collective traffic goes to the collective engine (see InboundRouter); nothing else is for us
            default -> Delivery.ACCEPTED;
        };
    }

    private Delivery onData(int peer, Message.Data d) {
        MailShard s = shards.getOrCreate(d.communicator()); // as its pair state before: bounded by the store
        s.lock.lock();
        try {
            return MailboxArrivals.onData(s, peer, d);
        } finally {
            s.lock.unlock();
        }
    }

    @Override
    public boolean deliverWaiting(int peer, Message message, long deadlineNanos) throws InterruptedException {
        for (;;) {
            long epoch = store.room().epoch(); // before the attempt: room freed after it is not missed
            if (onMessage(peer, message) != Delivery.FULL) {
                return true;
            }
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            store.room().await(epoch, left);
        }
    }

    @Override
    public void onPeerDown(int peer, String why, Throwable cause) {
        MailboxFailures.peerDown(this, peer, why);
    }

    /**
     * World rank {@code peer} is reachable again after all (a sparse world's rebuild bridged the hole that had cut it
     * off from this rank): receives from it and its messages are no longer refused. Receives that failed stay failed.
     */
    @Override
    public void forgetDown(int peer) {
        downPeers.remove(peer);
    }

    /**
     * Fails every pending receive, whatever its source (recovery policy abort, or this process excluded); later
     * receives are refused by the communicator.
     *
     * @param peer not used: a receive's error names its own source
     * @param why completes "cannot complete: ...", for example {@code world rank 2 failed (...)}
     */
    @Override
    public void abortAll(int peer, String why) {
        MailboxFailures.abortAll(this, why);
    }

    /** Fails every pending receive and refuses new ones. Idempotent. */
    @Override
    public void close(String reason) {
        MailboxFailures.close(this, reason);
    }

    /**
     * Closes one communicator here: fails its pending receives, drops what it holds and refuses its new receives and
     * messages. Other communicators are untouched. Idempotent.
     */
    public void closeCommunicator(int communicator, String reason) {
        MailboxFailures.closeCommunicator(this, communicator, reason);
    }

    /**
     * Unmatched messages currently held (bounded like the bytes; see the class comment).
     *
     * @return the number of messages that no receive has taken yet
     */
    public long storedMessages() {
        return store.storedMessages();
    }

    /**
     * Unmatched messages of world rank {@code sender} currently held (its share is half the message bound).
     *
     * @param sender the sender's world rank
     * @return its messages held
     */
    public long storedMessagesFrom(int sender) {
        return store.storedMessagesFrom(sender);
    }

    /** Bytes currently held in the unexpected store. */
    public long storedBytes() {
        return store.storedBytes();
    }

    /**
     * Fails the pending receives of {@code group}'s communicator, which its members abandoned (an automatic recovery
     * rebuilt it under a new id); its later messages are never matched.
     *
     * @param why completes "cannot complete: ..."
     */
    @Override
    public void retire(io.nexar.internal.collective.Group group, int[] failedWorld, String why) {
        MailboxFailures.failCommunicator(this, group.id(), why);
    }
}
