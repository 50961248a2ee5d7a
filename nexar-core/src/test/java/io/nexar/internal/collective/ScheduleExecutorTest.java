package io.nexar.internal.collective;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.CollectiveMismatchException;
import io.nexar.CommunicatorClosedException;
import io.nexar.DataType;
import io.nexar.NexarException;
import io.nexar.Operation;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.ReduceOp;
import io.nexar.internal.protocol.AbortReason;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.util.Deadline;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The executor's failure paths over a {@link FakeNetwork}: a send that fails, a peer that dies mid-schedule, a round
 * that never completes, ranks that run different schedules. Every rank runs a ring allReduce (sum of F32) on a
 * virtual thread of its own; faults fire on sends, never on timers. A failure must end the operation (nothing left
 * stored), name the rank it concerns, and reach the other ranks fast: their deadline is far beyond the test's
 * timeout, so only an abort or a peer-down report can end them in time. The ring's round 0 is its local copy; its
 * messages are those of rounds 1 to 2(n - 1).
 */
@Timeout(20)
class ScheduleExecutorTest {
    private static final Duration FAR = Duration.ofMinutes(1);
    private static final long CHUNK_BYTES = 1 << 20;

    /** Posts rank {@code rank}'s ring allReduce of {@code count} floats, each {@code rank + 1}. */
    private static OpState post(FakeNetwork net, int rank, long count) {
        int size = net.engines.length;
        var spec = new OpSpec(Operation.ALL_REDUCE, DataType.F32, ReduceOp.SUM, count, -1, null, null, false);
        Schedule schedule = RingAllReduce.plain().plan(rank, size, spec);
        MemorySegment in = MemorySegment.ofArray(new float[(int) count]);
        in.elements(ValueLayout.JAVA_FLOAT).forEach(e -> e.set(ValueLayout.JAVA_FLOAT, 0, rank + 1));
        MemorySegment out = MemorySegment.ofArray(new float[(int) count]);
        MemorySegment scratch = MemorySegment.ofArray(new float[(int) Math.max(1, schedule.scratchCount())]);
        var fp = new Fingerprint(Operation.ALL_REDUCE, DataType.F32, ReduceOp.SUM, Fingerprint.DENSE, count);
        return net.engines[rank].post(Group.world(rank, size), fp, schedule, DataType.F32, ReduceOp.SUM,
                new MemorySegment[] {in, out, scratch});
    }

    /** Runs {@code op} on a virtual thread; completes with its failure, or null if it succeeded. */
    private static CompletableFuture<NexarException> run(FakeNetwork net, int rank, OpState op, Duration timeout) {
        var result = new CompletableFuture<NexarException>();
        Thread.ofVirtual().name("rank-" + rank).start(() -> {
            try {
                ScheduleExecutor.run(net.engines[rank], net.transport(rank), op, Deadline.after(timeout),
                        CHUNK_BYTES);
                result.complete(null);
            } catch (NexarException e) {
                result.complete(e);
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        return result;
    }

    private static NexarException outcome(CompletableFuture<NexarException> f) throws Exception {
        return f.get(15, TimeUnit.SECONDS);
    }

    private static boolean isStep(Message m, int step) {
        return m instanceof Message.Collective c && c.step() == step;
    }

    @Test
    void everyRankGetsTheSumOverTheFakeNetwork() throws Exception {
        var net = new FakeNetwork(3, 1 << 20);
        var ops = new OpState[3];
        var runs = new java.util.ArrayList<CompletableFuture<NexarException>>();
        for (int r = 0; r < 3; r++) {
            ops[r] = post(net, r, 6);
            runs.add(run(net, r, ops[r], FAR));
        }
        for (int r = 0; r < 3; r++) {
            assertThat(outcome(runs.get(r))).as("rank %d", r).isNull();
            assertThat(ops[r].buffers[Buf.OUTPUT.ordinal()].toArray(ValueLayout.JAVA_FLOAT))
                    .containsOnly(1 + 2 + 3);
            assertThat(net.engines[r].storedBytes()).isZero();
        }
        assertThat(net.sent).noneMatch(s -> s.message() instanceof Message.CollectiveAbort);
    }

    @Test
    void aSendThatFailsFailsItsOperationAndAbortsTheOthersNamingTheRankItConcerns() throws Exception {
        var net = new FakeNetwork(3, 1 << 20);
        net.hook = (from, to, m, context) -> {
            if (from == 1 && to == 2 && isStep(m, 1)) {
                throw new PeerFailedException(context.withPeer(2), "cannot complete: rank 2 test link broke");
            }
            return true;
        };
        var runs = new java.util.ArrayList<CompletableFuture<NexarException>>();
        for (int r = 0; r < 3; r++) {
            runs.add(run(net, r, post(net, r, 6), FAR));
        }

        NexarException one = outcome(runs.get(1));
        assertThat(one).isInstanceOf(PeerFailedException.class).hasMessageContaining("rank 2 test link broke");
        assertThat(net.engines[1].storedBytes()).isZero();
        assertThat(net.sent(1, 0, Message.CollectiveAbort.class)).singleElement()
                .satisfies(a -> assertThat(a.reason()).isEqualTo(AbortReason.FAILED))
                .satisfies(a -> assertThat(a.culprit()).as("rank 2, the rank the failure names").isEqualTo(2));
        NexarException zero = outcome(runs.get(0));
        assertThat(zero).isInstanceOf(PeerFailedException.class)
                .hasMessageContaining("cannot complete: rank 2 failed (reported by rank 1: ");
        assertThat(outcome(runs.get(2))).isInstanceOf(PeerFailedException.class)
                .hasMessageContaining("rank 1 failed it (");
    }

    @Test
    void aPeerThatDiesMidScheduleFailsTheOthersNamingIt() throws Exception {
        var net = new FakeNetwork(3, 1 << 20);
        net.hook = (from, to, m, context) -> {
            if (from == 2 && isStep(m, 1)) {
                net.engines[2].close("test: the process was killed");
                net.kill(2, "failed (test: the process was killed)");
                return false;
            }
            return true;
        };
        var runs = new java.util.ArrayList<CompletableFuture<NexarException>>();
        for (int r = 0; r < 3; r++) {
            runs.add(run(net, r, post(net, r, 6), FAR));
        }

        assertThat(outcome(runs.get(2))).isInstanceOf(CommunicatorClosedException.class);
        for (int r = 0; r < 2; r++) {
            NexarException e = outcome(runs.get(r));
            assertThat(e).as("rank %d", r).isInstanceOf(PeerFailedException.class)
                    .hasMessageContaining("cannot complete: rank 2 failed (test: the process was killed)");
            assertThat(e.peer()).hasValue(2);
            assertThat(net.engines[r].storedBytes()).isZero();
        }
        // a survivor may also fail by sending to the dead rank first; then it aborts the others, naming the dead rank
        assertThat(net.sent).filteredOn(s -> s.message() instanceof Message.CollectiveAbort && s.from() != 2)
                .allSatisfy(s -> assertThat(((Message.CollectiveAbort) s.message()).culprit()).isEqualTo(2));
    }

    @Test
    void aRoundThatNeverCompletesTimesOutNamingTheAwaitedRankAndTellsIt() throws Exception {
        var net = new FakeNetwork(2, 1 << 20);
        NexarException e = outcome(run(net, 0, post(net, 0, 4), Duration.ofMillis(200))); // rank 1 never posts

        assertThat(e).isInstanceOf(OperationTimeoutException.class).hasMessageContaining("rank 1");
        assertThat(((OperationTimeoutException) e).step()).as("round 0 is the ring's first step").isEqualTo(0);
        assertThat(e.peer()).hasValue(1);
        assertThat(net.engines[0].storedBytes()).isZero();
        assertThat(net.sent(0, 1, Message.CollectiveAbort.class)).singleElement()
                .satisfies(a -> assertThat(a.reason()).isEqualTo(AbortReason.FAILED));

        OpState late = post(net, 1, 4); // rank 1 posts after rank 0 gave up: it fails at once
        assertThat(net.engines[1].failure(late)).isInstanceOf(PeerFailedException.class)
                .hasMessageContaining("cannot complete: rank 0 failed it (");
    }

    @Test
    void ranksThatRunDifferentSchedulesFailWithAMismatchAndBreakTheCommunicator() throws Exception {
        var net = new FakeNetwork(2, 1 << 20);
        var zero = run(net, 0, post(net, 0, 4), FAR);
        var one = run(net, 1, post(net, 1, 8), FAR);

        for (var f : java.util.List.of(zero, one)) {
            assertThat(outcome(f)).isInstanceOf(CollectiveMismatchException.class)
                    .satisfies(e -> assertThat(((CollectiveMismatchException) e).field())
                            .isEqualTo(CollectiveMismatchException.Field.COUNT));
        }
        for (int r = 0; r < 2; r++) {
            assertThat(net.engines[r].failure(post(net, r, 4))).as("rank %d's next operation", r)
                    .isInstanceOf(CollectiveMismatchException.class).hasMessageContaining("broken since seq 0");
        }
    }

    @Test
    void aPeersAbortEndsARunningOperationAtOnce() throws Exception {
        var net = new FakeNetwork(2, 1 << 20);
        OpState op = post(net, 0, 4);
        net.hook = (from, to, m, context) -> {
            if (from == 0 && isStep(m, 0)) { // rank 1 answers rank 0's first chunk with an abort
                net.engines[0].onMessage(1, new Message.CollectiveAbort(0, 0, AbortReason.FAILED, 0, -1,
                        "its caller was interrupted"));
                return false;
            }
            return true;
        };
        NexarException e = outcome(run(net, 0, op, FAR));
        assertThat(e).isInstanceOf(PeerFailedException.class)
                .hasMessageContaining("rank 1 failed it (its caller was interrupted)");
        assertThat(net.sent(0, 1, Message.CollectiveAbort.class)).as("rank 1 knows already").isEmpty();
    }

    @Test
    void anInterruptedDriverFailsWithCancellationAndTellsTheOthers() throws Exception {
        var net = new FakeNetwork(2, 1 << 20);
        net.hook = (from, to, m, context) -> {
            if (from == 0 && isStep(m, 0)) { // rank 0's caller is interrupted as it starts to wait for rank 1
                Thread.currentThread().interrupt();
                return false;
            }
            return true;
        };
        NexarException e = outcome(run(net, 0, post(net, 0, 4), Duration.ofSeconds(5)));
        assertThat(e).isInstanceOf(io.nexar.OperationCancelledException.class)
                .hasMessageContaining("was interrupted at step 0/2");
        assertThat(net.sent(0, 1, Message.CollectiveAbort.class)).hasSize(1);
    }
}
