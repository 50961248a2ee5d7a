package io.nexar.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.CollectiveHandle;
import io.nexar.CommunicatorClosedException;
import io.nexar.NexarConfig;
import io.nexar.OperationCancelledException;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.PointToPointHandle;
import io.nexar.RecoveryPolicy;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 14 item 1: a public blocking call throws the {@code NexarException} it documents, never a
 * {@code CompletionException}, {@code ExecutionException} or {@code CancellationException} around it (or instead of
 * it): the asynchronous handles' {@code await} when the waiting thread is interrupted, a peer fails, the deadline
 * passes, the communicator is closed or the handle's future is cancelled; {@code shrink} after a failure; and
 * {@code grow} when its thread is interrupted or a member crashes while it waits.
 * Interrupts fire once the waiting thread is seen blocked (an event, not a timer).
 */
@Timeout(60)
class NoWrapperEscapesTest {
    /** Long: a test that would only end by this timeout fails by its own bound first. */
    private static final Duration LONG = Duration.ofSeconds(20);

    private static NexarConfig config() {
        return NexarConfig.builder().ignoreEnvironment().collectiveTimeout(LONG).p2pTimeout(LONG)
                .recoveryTimeout(LONG).recoveryPolicy(RecoveryPolicy.MANUAL).build();
    }

    @Test
    void shouldCancelAnAsyncCollectiveWhoseAwaitIsInterrupted() {
        try (var cluster = LocalCluster.start(2, config())) {
            cluster.onEachRank(c -> {
                if (c.rank() == 0) { // rank 1 never calls the barrier
                    CollectiveHandle h = c.barrierAsync();
                    Throwable t = interruptedWhile(h::await);
                    assertThat(t).isInstanceOf(OperationCancelledException.class);
                    assertThat(h.isDone()).isTrue();
                }
                return null;
            });
        }
    }

    @Test
    void shouldThrowOperationCancelledFromAnInterruptedIrecvAwait() {
        try (var cluster = LocalCluster.start(2, config())) {
            cluster.onEachRank(c -> {
                if (c.rank() == 1) {
                    PointToPointHandle h = c.irecv(0, 3, MemorySegment.ofArray(new byte[8]));
                    assertThat(interruptedWhile(h::await)).isInstanceOf(OperationCancelledException.class);
                }
                return null;
            });
        }
    }

    @Test
    void shouldThrowOperationCancelledFromAwaitAfterItsFutureWasCancelled() {
        try (var cluster = LocalCluster.start(2, config())) {
            cluster.onEachRank(c -> {
                if (c.rank() == 0) {
                    CollectiveHandle h = c.barrierAsync();
                    assertThat(h.toCompletableFuture().cancel(true)).isTrue();
                    assertThat(thrownBy(h::await)).isInstanceOf(OperationCancelledException.class);
                }
                return null;
            });
        }
    }

    @Test
    void shouldThrowTimeoutFromAwaitsPastTheirDeadline() {
        try (var cluster = LocalCluster.start(2, config())) {
            cluster.onEachRank(c -> {
                if (c.rank() == 0) {
                    var quick = c.withTimeout(Duration.ofMillis(200));
                    assertThat(thrownBy(() -> quick.barrierAsync().await()))
                            .isInstanceOf(OperationTimeoutException.class);
                    assertThat(thrownBy(() -> quick.irecv(1, 5, MemorySegment.ofArray(new byte[4])).await()))
                            .isInstanceOf(OperationTimeoutException.class);
                }
                return null;
            });
        }
    }

    @Test
    void shouldThrowPeerFailedFromAwaitsAndShrinkAfterACrash() {
        try (var cluster = LocalCluster.start(3, config())) {
            var posted = new java.util.concurrent.CountDownLatch(2);
            var results = cluster.onEachRank(c -> {
                if (c.rank() == 2) {
                    posted.await();
                    cluster.crash(2);
                    return "crashed";
                }
                CollectiveHandle h = c.barrierAsync();
                PointToPointHandle r = c.irecv(2, 1, MemorySegment.ofArray(new byte[4]));
                posted.countDown();
                Throwable a = thrownBy(h::await);
                Throwable b = thrownBy(r::await);
                var survivors = c.shrink(); // a public blocking call too: returns, or throws a NexarException
                try (survivors) {
                    survivors.barrier();
                    return a.getClass().getSimpleName() + " " + b.getClass().getSimpleName() + " "
                            + survivors.worldSize();
                }
            });
            assertThat(results.get(0)).isEqualTo("PeerFailedException PeerFailedException 2");
            assertThat(results.get(1)).isEqualTo("PeerFailedException PeerFailedException 2");
        }
    }

    @Test
    void shouldThrowCommunicatorClosedFromAwaitsOfAClosedCommunicator() {
        try (var cluster = LocalCluster.start(2, config())) {
            cluster.onEachRank(c -> {
                var dup = c.dup();
                if (c.rank() == 0) {
                    CollectiveHandle h = dup.barrierAsync();
                    PointToPointHandle r = dup.irecv(1, 2, MemorySegment.ofArray(new byte[4]));
                    dup.close();
                    assertThat(thrownBy(h::await)).isInstanceOf(CommunicatorClosedException.class);
                    assertThat(thrownBy(r::await)).isInstanceOf(CommunicatorClosedException.class);
                } else {
                    dup.close();
                }
                return null;
            });
        }
    }

    @Test
    void shouldThrowOperationCancelledFromAnInterruptedGrow() {
        try (var cluster = LocalCluster.start(2, config())) {
            var results = cluster.onEachRank(c -> {
                if (c.rank() == 1) { // rank 0 never calls grow: rank 1 waits for its offer
                    Throwable t = interruptedWhile(c::grow);
                    return t == null ? "returned" : t.getClass().getSimpleName() + ": " + t.getMessage();
                }
                return "";
            });
            assertThat(results.get(1)).startsWith("OperationCancelledException: ")
                    .contains("on rank 1 (world 2, comm 0").contains("waiting for rank 0");
        }
    }

    @Test
    void shouldThrowPeerFailedFromAGrowWhoseRootCrashes() {
        try (var cluster = LocalCluster.start(3, config())) {
            var growing = new AtomicReference<Thread>();
            var results = cluster.onEachRank(c -> {
                switch (c.rank()) {
                    case 0 -> { // crashes once rank 1 waits in grow for its offer
                        Thread t;
                        while ((t = growing.get()) == null || (t.getState() != Thread.State.WAITING
                                && t.getState() != Thread.State.TIMED_WAITING)) {
                            Thread.onSpinWait();
                        }
                        cluster.crash(0);
                        return "crashed";
                    }
                    case 1 -> {
                        growing.set(Thread.currentThread());
                        Throwable t = thrownBy(c::grow);
                        return t == null ? "returned" : t.getClass().getSimpleName() + ": " + t.getMessage();
                    }
                    default -> {
                        return "";
                    }
                }
            });
            assertThat(results.get(1)).startsWith("PeerFailedException: ").contains("peer 0")
                    .contains("rank 0 crashed");
        }
    }

    /** What {@code body} throws (null if nothing), run on this thread. */
    private static Throwable thrownBy(Runnable body) {
        try {
            body.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    /**
     * Runs {@code body} on a platform thread, interrupts it once it is seen blocked, and returns what it threw; checks
     * that its interrupt status was kept.
     */
    private static Throwable interruptedWhile(Runnable body) throws InterruptedException {
        var thrown = new AtomicReference<Throwable>();
        var flagKept = new AtomicBoolean();
        Thread t = Thread.ofPlatform().name("awaiting").start(() -> {
            thrown.set(thrownBy(body));
            flagKept.set(Thread.currentThread().isInterrupted());
        });
        while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
            Thread.onSpinWait();
        }
        t.interrupt();
        t.join();
        assertThat(flagKept).as("interrupt status kept").isTrue();
        return thrown.get();
    }
}
