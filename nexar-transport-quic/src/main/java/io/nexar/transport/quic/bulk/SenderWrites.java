package io.nexar.transport.quic.bulk;

import io.nexar.ErrorContext;
import io.nexar.OperationCancelledException;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.internal.transport.ContextSource;
import io.nexar.internal.util.Deadline;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The parts of a {@link BulkWriter} sender's work that need none of the writer's lock: the plain-TCP write of a large
 * frame from where it lies ({@link #writeFrom}), the copy of what is left of a frame whose sender goes at its deadline
 * ({@link #copyOfRest}), and the errors a sender throws. Static helpers: nothing is allocated per frame except that
 * copy and the exceptions.
 */
final class SenderWrites {
    /** Plain TCP frames at least this large, in direct memory, are written from where they lie ({@link #writeFrom}). */
    static final long DIRECT_MIN_BYTES = 64 << 10;

    private SenderWrites() {
    }

    /** True if a frame of {@code bytes} in {@code srcs} is written from where it lies: large, direct, plain TCP. */
    static boolean direct(ByteBuffer[] srcs, long bytes, BulkOutput output) {
        if (bytes < DIRECT_MIN_BYTES || !output.isPlain()) {
            return false;
        }
        for (ByteBuffer b : srcs) {
            if (!b.isDirect()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Writes {@code srcs} to the socket until all is written or the deadline passes; the caller holds the socket's
     * write turn. While the socket is full, the sender does what it would do waiting for a message: it reads this
     * lane's connections itself (its peer may be blocked writing to it just the same: a ring's ranks all send and
     * receive at once), yielding its core between tries, for the poll window since the last progress; then it hands
     * the lane back to the reader threads and waits for the socket.
     *
     * @return true if all was written, false if the deadline passed first
     */
    static boolean writeFrom(BulkConnection owner, BulkOutput output, ByteBuffer[] srcs, long deadlineNanos)
            throws IOException {
        // a virtual thread waits for the socket at once: its yield gives no core back (Progress.pollUntil)
        long window = Thread.currentThread().isVirtual() ? 0 : owner.pollWindowNanos();
        long idleSince = System.nanoTime();
        while (BulkOutput.hasRemaining(srcs)) {
            if (output.writeSome(srcs) > 0) {
                idleSince = System.nanoTime();
                continue;
            }
            long now = System.nanoTime();
            long left = deadlineNanos - now;
            if (left <= 0) {
                return false;
            }
            if (now - idleSince < window) {
                owner.pollOwnLane();
                Thread.yield();
            } else {
                owner.handBackOwnLane();
                output.awaitWritable(left);
            }
        }
        return true;
    }

    /** A heap copy of what is left of {@code srcs}, so that their sender may go and reuse its memory. */
    static ByteBuffer[] copyOfRest(ByteBuffer[] srcs) {
        ByteBuffer[] copy = new ByteBuffer[srcs.length];
        for (int i = 0; i < srcs.length; i++) {
            copy[i] = ByteBuffer.allocate(srcs[i].remaining());
            copy[i].put(srcs[i].duplicate()).flip();
        }
        return copy;
    }

    /** A write to the socket failed: the peer is lost (its link learns why) and the sender's call fails. */
    static PeerFailedException writeFailure(BulkConnection owner, Exception e, ContextSource context) {
        owner.failure().writeFailed(e);
        int peer = owner.link().peer();
        return new PeerFailedException(context.withPeer(peer), "cannot complete: writing rank " + peer
                + "'s bulk lane failed: " + e, e);
    }

    /** The sender's deadline passed before its frame could start (or, written directly, before any of it was). */
    static OperationTimeoutException tooSlow(BulkConnection owner, Deadline deadline, ContextSource context) {
        int peer = owner.link().peer();
        return new OperationTimeoutException(context.withPeer(peer), deadline.timeout(), "rank " + peer
                + " to take more data on its bulk lane (is it posting receives?)");
    }

    /** The sender was interrupted before its frame started. */
    static OperationCancelledException interrupted(BulkConnection owner, ContextSource context) {
        int peer = owner.link().peer();
        return new OperationCancelledException(context.withPeer(peer), "was interrupted while waiting for rank " + peer
                + " to take more data");
    }
}
