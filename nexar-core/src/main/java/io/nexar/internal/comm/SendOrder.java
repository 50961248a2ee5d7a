package io.nexar.internal.comm;

import io.nexar.ErrorContext;
import io.nexar.OperationCancelledException;
import io.nexar.OperationTimeoutException;
import io.nexar.internal.util.Deadline;
import java.util.TreeSet;

/**
 * The send order to one destination on one communicator: numbers the messages 0, 1, 2, ... and hands their first
 * chunks to the transport in that order.
 *
 * <p>Why: the receiver matches a message only once every earlier one of its sender has started to arrive, and a lane
 * whose chunk the receiver refuses (its unexpected store is full) stops until that chunk is taken. A first chunk that
 * overtook an earlier message on the same lane could hold that message back for good. {@code isend} transmits on a
 * virtual thread, so without this gate a later {@code send} of the same thread could overtake it.
 */
final class SendOrder {
    private long next;
    /** Every message numbered below this has had its first chunk handed to the transport (or failed). */
    private long started;
    /** Numbers at or above {@link #started} whose first chunk went (out of turn only after a failure). */
    private final TreeSet<Long> startedAhead = new TreeSet<>();

    /** The next message's number: its place in the order is fixed from now. */
    synchronized long take() {
        return next++;
    }

    /**
     * Waits until every message numbered below {@code seq} has had its first chunk handed to the transport.
     *
     * @throws OperationTimeoutException if {@code deadline} passes first
     * @throws OperationCancelledException if the thread is interrupted (its interrupt status is kept)
     */
    synchronized void awaitTurn(long seq, Deadline deadline, ErrorContext context) {
        try {
            while (started < seq) {
                long left = deadline.remainingNanos();
                if (left <= 0) {
                    throw new OperationTimeoutException(context, deadline.timeout(), "the earlier sends to rank "
                            + context.peer() + " to start (message " + seq + " waits for message " + started + ")");
                }
                wait(left / 1_000_000, (int) (left % 1_000_000));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OperationCancelledException(context, "was interrupted while waiting for the earlier sends to "
                    + "rank " + context.peer() + " to start");
        }
    }

    /** Message {@code seq}'s first chunk was handed to the transport, or its send failed before: the next may go. */
    synchronized void started(long seq) {
        if (seq != started) {
            startedAhead.add(seq);
            return;
        }
        started++;
        while (!startedAhead.isEmpty() && startedAhead.first() == started) {
            startedAhead.pollFirst();
            started++;
        }
        notifyAll();
    }
}
