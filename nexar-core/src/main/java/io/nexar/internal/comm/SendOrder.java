package io.nexar.internal.comm;

import io.nexar.ErrorContext;
import io.nexar.OperationCancelledException;
import io.nexar.OperationTimeoutException;
import io.nexar.internal.util.Deadline;
import java.util.TreeSet;

/**
 * The send order to one destination on one communicator: numbers the messages 0, 1, 2, ... and hands them to the
 * transport one after the other, in that order, each whole (its chunks never interleave with another message's).
 *
 * <p>Why: a lane whose chunk the receiver refuses (its unexpected store is full, and nothing waits for that message)
 * stops until the chunk is taken. A chunk of a later message that went ahead of an earlier message's chunks on the
 * same lane could so hold the earlier one back for good: the receiver takes the later message only once the earlier
 * one has been received. {@code isend} transmits on a virtual thread, so without this a later {@code send} of the
 * same thread would overtake it (MpiPointToPointCases#shouldNotLetASendOvertakeAnEarlierIsendThroughAFullStore).
 */
final class SendOrder {
    private long next;
    /** Every message numbered below this has been handed to the transport whole, or failed. */
    private long started;
    /** Numbers above {@link #started} that are done (out of turn only after a failure: a timeout at the gate). */
    private final TreeSet<Long> startedAhead = new TreeSet<>();

    /** The next message's number: its place in the order is fixed from now. */
    synchronized long take() {
        return next++;
    }

    /**
     * Waits until every message numbered below {@code seq} has been handed to the transport whole, or failed.
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

    /** Message {@code seq} was handed to the transport whole, or its send failed: the next may go. */
    synchronized void done(long seq) {
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
