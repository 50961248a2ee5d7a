package io.nexar.internal.transport;

import io.nexar.CommunicatorClosedException;
import io.nexar.ErrorContext;
import io.nexar.OperationCancelledException;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.ProtocolException;
import io.nexar.internal.collective.CollectiveEngine;
import io.nexar.internal.p2p.Mailbox;
import io.nexar.internal.protocol.GoodbyeReason;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import io.nexar.internal.util.Deadline;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One rank's endpoint of an {@link InProcessFabric}. A send encodes the message into a frame, checks and decodes it
 * as the receiver would, and hands it to the receiver's {@link Mailbox} on the calling thread; when the receiver's
 * unexpected store is full the caller waits there, so back-pressure is exact. No threads of its own. Inbound messages
 * go through the receiver's {@link InboundRouter}: point-to-point to its {@link Mailbox}, collectives to its
 * {@link CollectiveEngine}.
 */
public final class InProcessTransport implements Transport {
    private final InProcessFabric fabric;
    private final int rank;
    private final int worldSize;
    private final InboundRouter router;
    private final long incarnation;
    /** Null while open; then why this endpoint went down. */
    private final AtomicReference<String> down = new AtomicReference<>();
    /** Peers excluded by recovery, and why: nothing goes to them or comes from them any more. */
    private final Map<Integer, String> excluded = new ConcurrentHashMap<>();
    private boolean crashed;
    /** Largest frame encoded into a {@link ReusedFrame}. */
    private static final int REUSED_FRAME_BYTES = 4096;
    /** Where small collective chunks are encoded and decoded ({@link #roundTrip}); null while a send uses it. */
    private final AtomicReference<ReusedFrame> reused = new AtomicReference<>(new ReusedFrame());

    /**
     * A frame and the message decoded from it, both reused from one small collective chunk to the next: the
     * collective engine copies or reduces a chunk before its delivery returns and keeps neither the frame nor the
     * message (as with a bulk lane's reader, which decodes into one message too), so a steady small collective sends
     * without allocating.
     */
    private static final class ReusedFrame {
        final MemorySegment frame = MemorySegment.ofArray(new byte[REUSED_FRAME_BYTES]);
        final Message.Collective message = new Message.Collective();
    }

    InProcessTransport(InProcessFabric fabric, int rank, int worldSize, InboundRouter router, long incarnation) {
        this.fabric = fabric;
        this.rank = rank;
        this.worldSize = worldSize;
        this.router = router;
        this.incarnation = incarnation;
        router.servedBy(this); // its protocol errors name this rank and world
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int worldSize() {
        return worldSize;
    }

    /** The process's point-to-point receive side. */
    public Mailbox mailbox() {
        return router.mailbox();
    }

    /** The process's collective receive side. */
    public CollectiveEngine engine() {
        return router.engine();
    }

    /** A random-enough number identifying this start of the endpoint (sent in Hello by network transports). */
    public long incarnation() {
        return incarnation;
    }

    @Override
    public void send(int peer, Lane lane, Message message, Deadline deadline, ContextSource context) {
        String myState = down.get();
        if (myState != null) {
            throw new CommunicatorClosedException(context.errorContext(), "failed: " + myState);
        }
        String out = excluded.get(peer);
        if (out != null) {
            throw new PeerFailedException(context.withPeer(peer), "cannot complete: rank " + peer + " " + out);
        }
        InProcessTransport target = fabric.endpoint(peer);
        String peerState = target.down.get();
        if (peerState == null && target.excluded.containsKey(rank)) {
            peerState = "excluded this rank (recovery removed it)";
        }
        if (peerState != null) {
            throw new PeerFailedException(context.withPeer(peer), "cannot complete: rank " + peer + " " + peerState);
        }
        long size = MessageCodec.encodedSize(message);
        ReusedFrame borrowed = message instanceof Message.Collective && size <= REUSED_FRAME_BYTES
                ? reused.getAndSet(null) : null;
        Message decoded;
        try {
            decoded = roundTrip(message, size, borrowed);
        } catch (RuntimeException e) {
            if (borrowed != null) {
                reused.set(borrowed);
            }
            throw e;
        }
        boolean taken;
        try {
            taken = target.router.deliverWaiting(rank, decoded, deadline.deadlineNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OperationCancelledException(context.withPeer(peer), "was interrupted while waiting for rank " + peer
                    + " to make room");
        } catch (ProtocolException e) {
            target.router.onPeerDown(rank, "broke the protocol: " + e.getMessage(), e);
            throw e;
        } finally {
            if (borrowed != null) {
                reused.set(borrowed); // delivered or refused: nothing refers to its frame or message any more
            }
        }
        if (!taken) {
            String now = target.down.get();
            if (now != null) {
                throw new PeerFailedException(context.withPeer(peer), "cannot complete: rank " + peer + " " + now);
            }
            throw new OperationTimeoutException(context.withPeer(peer), deadline.timeout(), "rank " + peer
                    + " to receive (its store of unexpected messages is full; is it posting receives?)");
        }
    }

    /**
     * Encodes and decodes the message as a network transport would, so every frame obeys the wire protocol. A small
     * collective chunk is encoded into this endpoint's {@link ReusedFrame} and decoded into its message (taken, then
     * given back by {@link #send} once delivered), so a small collective allocates neither; other messages (kept by
     * their receivers) get a frame and a message of their own.
     *
     * @param size the message's encoded size
     * @param borrowed the reusable frame if this send took it, else null
     */
    private Message roundTrip(Message message, long size, ReusedFrame borrowed) {
        long max = fabric.config().maxFrameBytes();
        if (borrowed != null) {
            MessageCodec.encode(message, borrowed.frame); // writes the frame's first size bytes
            return MessageCodec.decode(rank, borrowed.frame, size, max, borrowed.message);
        }
        MemorySegment frame = MemorySegment.ofArray(new byte[Math.toIntExact(size)]);
        MessageCodec.encode(message, frame);
        return MessageCodec.decode(rank, frame, max);
    }

    @Override
    public void exclude(int peer, String why) {
        if (peer != rank && excluded.putIfAbsent(peer, why) == null) {
            router.onPeerDown(peer, why, null);
            // as a network transport closes the link saying why: the peer learns that it was declared failed
            String told = "declared this rank failed (rank " + rank + ": rank " + peer + " " + why + ")";
            fabric.endpoint(peer).router.onPeerDown(rank, told, new DeclaredFailed(told));
        }
    }

    /**
     * Test fault: this rank's process dies without a word. Its own operations fail; every peer hears of it as its
     * failure detector would, with {@code why}.
     */
    public void crash(String why) {
        synchronized (this) {
            if (crashed) {
                return;
            }
            crashed = true;
        }
        // Peers hear of it before their sends can fail on it, as with a failure detector that reports first.
        for (int peer = 0; peer < fabric.worldSize(); peer++) {
            if (peer != rank) {
                fabric.endpoint(peer).router.onPeerDown(rank, why, null);
            }
        }
        if (down.compareAndSet(null, why)) {
            router.close("this rank crashed (test fault)");
        }
        fabric.endpointDown();
    }

    /** {@return whether this endpoint crashed, closed or failed} */
    boolean isDown() {
        return down.get() != null;
    }

    /**
     * Every pair of endpoints reaches each other: a link between running members is the agreement of both ends.
     *
     * @return true
     */
    @Override
    public boolean linksMembers() {
        return true;
    }

    /**
     * Opens links to running members: each is up once {@code peer} asked for its link to this rank too
     * ({@link InProcessFabric#link}).
     *
     * @param peers the members to link to (their descriptors are not needed)
     * @param listed run at once
     * @param deadline when to give up
     * @throws PeerFailedException naming the first peer whose link is not up at the deadline (or that went down)
     */
    @Override
    public void linkMembers(java.util.List<Newcomer> peers, Runnable listed, Deadline deadline) {
        listed.run();
        int[] missing = fabric.link(rank, peers.stream().mapToInt(Newcomer::worldRank).toArray(), deadline);
        if (missing.length > 0) {
            throw new PeerFailedException(new ErrorContext(io.nexar.Operation.RECOVERY, rank, worldSize, -1, -1, -1,
                    missing[0]), "cannot complete: the new link to rank " + missing[0] + " is not up (ranks "
                    + java.util.Arrays.toString(missing) + " did not link back before the deadline or went down)");
        }
    }

    /** The inbound side of this endpoint. */
    public InboundRouter router() {
        return router;
    }

    /** Closes this endpoint normally: peers see this rank leave. */
    @Override
    public void close() {
        shutDown(GoodbyeReason.CLOSE, "it closed its communicator");
    }

    /** Marks this endpoint failed (its rank's code threw): peers see this rank fail. */
    public void fail(Throwable cause) {
        shutDown(GoodbyeReason.FAILURE, String.valueOf(cause));
    }

    private void shutDown(GoodbyeReason reason, String detail) {
        String why = reason.describe(detail);
        if (!down.compareAndSet(null, why)) {
            return;
        }
        router.close(reason == GoodbyeReason.CLOSE ? "the communicator was closed" : "this rank failed: " + detail);
        for (int peer = 0; peer < fabric.worldSize(); peer++) {
            if (peer != rank) {
                fabric.endpoint(peer).router.onPeerDown(rank, why, null);
            }
        }
        fabric.endpointDown();
    }
}
