package io.nexar.internal.cluster;

import io.nexar.ErrorContext;
import io.nexar.OperationCancelledException;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.internal.util.Deadline;
import io.nexar.internal.util.Futures;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * An application thread's wait for an agreement's {@link Decision} ({@link Membership#shrink}, a recovery in
 * progress), with its failures translated into the exceptions the caller's operation throws.
 */
final class DecisionWait {
    private DecisionWait() {
    }

    /**
     * Waits for {@code f} until {@code deadline}.
     *
     * @param f the decision's future
     * @param deadline when to give up
     * @param context the waiting operation, for its exception
     * @param waitingFor asked once on a timeout: the world ranks that have not answered the agreement
     * @return the decision
     * @throws OperationTimeoutException at the deadline, naming the ranks that have not answered
     * @throws PeerFailedException if the agreement could not give this process a communicator
     * @throws OperationCancelledException if the thread was interrupted
     */
    static Decision await(CompletableFuture<Decision> f, Deadline deadline, ErrorContext context,
                          Supplier<List<Integer>> waitingFor) {
        try {
            return f.get(deadline.remainingNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            List<Integer> who = waitingFor.get();
            throw new OperationTimeoutException(context, deadline.timeout(), "the agreement on the failed ranks"
                    + (who.isEmpty() ? "" : " (world ranks " + who + " have not answered)"));
        } catch (CancellationException e) {
            throw Futures.unwrap(e);
        } catch (ExecutionException e) {
            RuntimeException cause = Futures.unwrap(e); // through thenCompose the failure may come wrapped twice
            if (cause instanceof RecoveryFailure rf) {
                throw new PeerFailedException(context, "cannot continue: " + rf.getMessage());
            }
            throw cause;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OperationCancelledException(context, "was interrupted while waiting for the"
                    + " agreement on the failed ranks");
        }
    }
}
