package io.nexar.internal.collective;

import io.nexar.CollectiveMismatchException;
import io.nexar.NexarException;
import io.nexar.PeerFailedException;
import io.nexar.internal.protocol.AbortReason;
import io.nexar.internal.protocol.Message;

/**
 * Questions about one {@link OpState}'s peers: whether it still needs a rank, and the failure a rank's abort names.
 *
 * <p>Threading: as {@link OpState}, under its communicator's shard lock ({@link CommState#lock}).
 */
final class OpPeers {
    private OpPeers() {
    }

    /**
     * Whether operation {@code op} still waits for something from communicator rank {@code r}: a receive of the open
     * round that is not complete, or a receive of a later round whose bytes have not all arrived (arrived ones wait
     * in {@link OpState#later}); a receive whose bytes have all arrived is not waiting any more, even while the thread
     * that claimed the last chunk is still copying it in. A rank that left politely sent everything first, so an
     * operation that does not still need it can finish without it.
     */
    static boolean stillNeeds(OpState op, int r) {
        Slot open = op.slots.get(r);
        // bytes claimed by chunks that arrived are being written by the thread that claimed them: not needed again
        if (op.round >= 0 && open != null && !open.done && open.receivedBytes < open.expectedBytes) {
            return true;
        }
        int w = op.type.byteSize();
        int worldR = op.group.world(r);
        for (int k = Math.max(op.round + 1, 0); k < op.schedule.roundCount(); k++) {
            for (Step s : op.schedule.rounds().get(k)) {
                long expected = switch (s) {
                    case Step.RecvInto x when x.peer() == r -> x.dst().count() * w;
                    case Step.RecvReduce x when x.peer() == r -> x.dst().count() * w;
                    default -> -1;
                };
                if (expected < 0) {
                    continue;
                }
                long arrived = op.aheadReceived(k, r);
                for (StoredChunk c : op.later) {
                    if (c.worldSrc() == worldR && c.message().step() == k) {
                        arrived += c.message().payload().byteSize();
                    }
                }
                if (arrived < expected) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether operation {@code op} still needs one of the world ranks {@code worldRanks} ({@link #stillNeeds}). */
    static boolean stillNeedsAny(OpState op, int[] worldRanks) {
        for (int w : worldRanks) {
            int r = op.group.local(w);
            if (r >= 0 && r != op.group.rank() && stillNeeds(op, r)) {
                return true;
            }
        }
        return false;
    }

    /** The failure of operation {@code op} aborted by communicator rank {@code src}. */
    static NexarException abortedBy(OpState op, int src, Message.CollectiveAbort a) {
        if (a.reason() == AbortReason.MISMATCH) {
            var f = CollectiveMismatchException.Field.fromCode(a.field());
            return new CollectiveMismatchException(op.context().withPeer(src),
                    f == null ? CollectiveMismatchException.Field.SCHEDULE : f,
                    "was aborted by rank " + src + ": " + a.detail());
        }
        if (a.reason() == AbortReason.RETIRED) {
            return new PeerFailedException(op.context().withPeer(src), "cannot complete: rank " + src
                    + " will not take part: " + a.detail());
        }
        int culprit = a.culprit() < 0 ? -1 : op.group.local(a.culprit());
        if (culprit >= 0 && culprit != src && culprit != op.group.rank()) { // the cause, not the cascade
            return new PeerFailedException(op.context().withPeer(culprit), "cannot complete: rank " + culprit
                    + " failed (reported by rank " + src + ": " + a.detail() + ")");
        }
        return new PeerFailedException(op.context().withPeer(src), "cannot complete: rank " + src
                + " failed it (" + a.detail() + ")");
    }
}
