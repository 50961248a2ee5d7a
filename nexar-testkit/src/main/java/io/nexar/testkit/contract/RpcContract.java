package io.nexar.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.Communicator;
import io.nexar.ErrorCode;
import io.nexar.NexarConfig;
import io.nexar.OperationCancelledException;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.ReduceOp;
import io.nexar.RpcException;
import io.nexar.rpc.RpcCall;
import io.nexar.rpc.RpcCodec;
import io.nexar.rpc.RpcMethod;
import io.nexar.testkit.RankFailedException;
import io.nexar.testkit.TestCluster;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The RPC contract every transport must pass: answers from any rank to any rank, concurrent calls matched by id,
 * remote failures, unknown functions answered at once, timeouts, a callee that dies, cancellation that reaches the
 * callee, split communicators, independence from collectives and other calls, and back-pressure. A transport's test is
 * a one-line subclass that says how to start a {@link TestCluster}. No test sleeps: faults fire on latches, and the
 * only timed waits are the deadlines under test.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class RpcContract {
    private static final long WAIT_SECONDS = 20;
    private static final RpcMethod<Long, Long> SQUARE = RpcMethod.of(2, RpcCodec.int64(), RpcCodec.int64());
    private static final RpcMethod<String, String> ECHO = RpcMethod.of(3, RpcCodec.utf8(), RpcCodec.utf8());

    /** For a transport's one-line subclass. */
    protected RpcContract() {
    }

    /**
     * Starts {@code worldSize} connected ranks with {@code config}.
     *
     * @param worldSize the number of ranks
     * @param config the configuration of every rank
     * @return the running cluster; the test closes it
     */
    protected abstract TestCluster start(int worldSize, NexarConfig config);

    /**
     * A configuration for fast tests: no environment, short timeouts.
     *
     * @return a builder the tests add to or build as it is
     */
    protected NexarConfig.Builder config() {
        return NexarConfig.builder().ignoreEnvironment().p2pTimeout(Duration.ofSeconds(20))
                .collectiveTimeout(Duration.ofSeconds(20)).rpcTimeout(Duration.ofSeconds(20));
    }

    private TestCluster start(int worldSize) {
        return start(worldSize, config().build());
    }

    private static MemorySegment text(String s) {
        return MemorySegment.ofArray(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String text(MemorySegment s) {
        return new String(s.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }

    private static void await(CountDownLatch latch, String what) throws InterruptedException {
        assertThat(latch.await(WAIT_SECONDS, TimeUnit.SECONDS)).as(what).isTrue();
    }

    /** A handler body that blocks until its thread is interrupted, then counts the interrupt and rethrows it. */
    private static MemorySegment blockUntilInterrupted(CountDownLatch started, CountDownLatch interrupted)
            throws InterruptedException {
        started.countDown();
        try {
            new CountDownLatch(1).await();
            throw new AssertionError("unreachable");
        } catch (InterruptedException e) {
            interrupted.countDown();
            throw e;
        }
    }

    @Test
    void shouldAnswerEveryRankFromEveryRankItselfIncluded() {
        try (var cluster = start(3)) {
            cluster.run(c -> {
                c.rpc().register(1, (ctx, req) -> text("rank " + c.rank() + " answers " + ctx.caller() + " ("
                        + text(req) + ", function " + ctx.functionId() + ")"));
                c.rpc().register(SQUARE, (ctx, x) -> x * x + c.rank());
                c.rpc().register(ECHO, (ctx, s) -> s);
                c.barrier();
                for (int peer = 0; peer < c.worldSize(); peer++) {
                    assertThat(text(c.rpc().call(peer, 1, text("hi"))))
                            .isEqualTo("rank " + peer + " answers " + c.rank() + " (hi, function 1)");
                    assertThat(new String(c.rpc().call(peer, 1, "b".getBytes(StandardCharsets.UTF_8)),
                            StandardCharsets.UTF_8)).isEqualTo("rank " + peer + " answers " + c.rank()
                            + " (b, function 1)");
                    assertThat(c.rpc().call(peer, SQUARE, 7L + c.rank())).isEqualTo((7L + c.rank()) * (7 + c.rank())
                            + peer);
                    assertThat(c.rpc().call(peer, ECHO, "")).isEmpty();
                    assertThat(c.rpc().callAsync(peer, ECHO, "\u00e9t\u00e9").await()).isEqualTo("\u00e9t\u00e9");
                }
                c.barrier(); // nobody closes while others still call it
                return null;
            });
        }
    }

    @Test
    void shouldMatchConcurrentCallsToOneFunctionByRequestId() {
        int calls = 16;
        var arrived = new CountDownLatch(calls);
        try (var cluster = start(2)) {
            cluster.run(c -> {
                // Every request waits until all have arrived: the answers leave in whatever order the threads wake.
                c.rpc().register(SQUARE, (ctx, x) -> {
                    arrived.countDown();
                    await(arrived, "all requests running at once");
                    return x * x;
                });
                c.barrier();
                if (c.rank() == 0) {
                    var pending = new ArrayList<RpcCall<Long>>();
                    for (long i = 0; i < calls; i++) {
                        pending.add(c.rpc().callAsync(1, SQUARE, i));
                    }
                    for (int i = calls - 1; i >= 0; i--) {
                        assertThat(pending.get(i).await()).as("call " + i).isEqualTo((long) i * i);
                        assertThat(pending.get(i).isDone()).isTrue();
                    }
                    assertThat(pending.get(0).toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS)).isZero();
                }
                c.barrier();
                return null;
            });
        }
    }

    @Test
    void shouldCarryTheRemoteExceptionsClassAndMessage() {
        try (var cluster = start(2)) {
            cluster.run(c -> {
                c.rpc().register(4, (ctx, req) -> {
                    throw new IllegalStateException("no such key: " + text(req));
                });
                c.rpc().register(ECHO, (ctx, s) -> {
                    throw new java.io.IOException("disk on rank " + c.rank());
                });
                c.barrier();
                if (c.rank() == 0) {
                    assertThatThrownBy(() -> c.rpc().call(1, 4, text("42")))
                            .isInstanceOfSatisfying(RpcException.class, e -> {
                                assertThat(e.reason()).isEqualTo(RpcException.Reason.HANDLER_FAILED);
                                assertThat(e.remoteClass()).isEqualTo("java.lang.IllegalStateException");
                                assertThat(e.remoteMessage()).isEqualTo("no such key: 42");
                                assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
                                assertThat(e.functionId()).isEqualTo(4);
                                assertThat(e.peer()).hasValue(1);
                                assertThat(e).hasMessage("rpc on rank 0 (world 2, comm 0, peer 1) failed on"
                                        + " rank 1: function 4"
                                        + " threw java.lang.IllegalStateException: no such key: 42");
                            });
                    assertThatThrownBy(() -> c.rpc().callAsync(1, ECHO, "x").await())
                            .isInstanceOfSatisfying(RpcException.class, e -> {
                                assertThat(e.remoteClass()).isEqualTo("java.io.IOException");
                                assertThat(e.remoteMessage()).isEqualTo("disk on rank 1");
                                assertThat(e.code()).isEqualTo(ErrorCode.ABORTED);
                            });
                }
                c.barrier();
                return null;
            });
        }
    }

    @Test
    void shouldAnswerAnUnknownFunctionAtOnce() {
        try (var cluster = start(2)) {
            cluster.run(c -> {
                c.barrier();
                if (c.rank() == 0) {
                    long start = System.nanoTime();
                    // The call's own deadline is far away: only an answer ends it before the test's timeout.
                    assertThatThrownBy(() -> c.rpc().call(1, 99, text("?"), Duration.ofMinutes(10)))
                            .isInstanceOfSatisfying(RpcException.class, e -> {
                                assertThat(e.reason()).isEqualTo(RpcException.Reason.UNKNOWN_FUNCTION);
                                assertThat(e.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
                                assertThat(e.remoteClass()).isEmpty();
                                assertThat(e).hasMessageContaining("function 99 is not registered on communicator 0"
                                        + " of rank 1");
                            });
                    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
                }
                c.barrier();
                return null;
            });
        }
    }

    @Test
    void shouldTimeOutAndInterruptTheCalleesHandler() {
        var started = new CountDownLatch(1);
        var interrupted = new CountDownLatch(1);
        try (var cluster = start(2)) {
            cluster.run(c -> {
                c.rpc().register(5, (ctx, req) -> blockUntilInterrupted(started, interrupted));
                c.rpc().register(ECHO, (ctx, s) -> s);
                c.barrier();
                if (c.rank() == 0) {
                    assertThatThrownBy(() -> c.rpc().call(1, 5, text("slow"), Duration.ofMillis(300)))
                            .isInstanceOfSatisfying(OperationTimeoutException.class, e -> {
                                assertThat(e.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
                                assertThat(e.timeout()).isEqualTo(Duration.ofMillis(300));
                                assertThat(e).hasMessage("rpc on rank 0 (world 2, comm 0, peer 1) timed out after 300ms"
                                        + " waiting for the response of rank 1 to function 5");
                            });
                    assertThat(c.rpc().call(1, ECHO, "still fine")).isEqualTo("still fine");
                } else {
                    await(interrupted, "the handler was interrupted when its caller gave up");
                }
                c.barrier();
                return null;
            });
        }
    }

    @Test
    void shouldDeliverCancellationToTheCallee() {
        var started = new CountDownLatch(1);
        var interrupted = new CountDownLatch(1);
        try (var cluster = start(2)) {
            cluster.run(c -> {
                c.rpc().register(6, (ctx, req) -> text(req).equals("block")
                        ? blockUntilInterrupted(started, interrupted) : req);
                c.barrier();
                if (c.rank() == 0) {
                    RpcCall<MemorySegment> call = c.rpc().callAsync(1, 6, text("block"));
                    await(started, "the handler started");
                    assertThat(call.cancel()).isTrue();
                    assertThat(call.cancel()).isFalse();
                    assertThat(call.isDone()).isTrue();
                    assertThatThrownBy(call::await).isInstanceOf(OperationCancelledException.class)
                            .hasMessage("rpc on rank 0 (world 2, comm 0, peer 1) was cancelled by the caller");
                    assertThat(call.toCompletableFuture()).failsWithin(Duration.ofSeconds(WAIT_SECONDS));
                    assertThat(text(c.rpc().call(1, 6, text("after")))).isEqualTo("after");
                } else {
                    await(interrupted, "the cancel reached the handler's thread");
                }
                c.barrier();
                return null;
            });
        }
    }

    @Test
    void shouldFailPendingCallsWithPeerFailedWhenTheCalleeDies() {
        var started = new CountDownLatch(1);
        var failure = new AtomicReference<Throwable>();
        var elapsed = new AtomicReference<Duration>();
        try (var cluster = start(3)) {
            assertThatThrownBy(() -> cluster.run(c -> {
                c.rpc().register(7, (ctx, req) -> blockUntilInterrupted(started, new CountDownLatch(1)));
                c.barrier();
                if (c.rank() == 0) {
                    RpcCall<MemorySegment> call = c.rpc().callAsync(2, 7, text("never answered"));
                    long start = System.nanoTime();
                    try {
                        call.await();
                    } catch (PeerFailedException e) {
                        failure.set(e);
                    }
                    elapsed.set(Duration.ofNanos(System.nanoTime() - start));
                } else if (c.rank() == 2) {
                    await(started, "the handler started");
                    throw new IllegalStateException("the callee dies");
                }
                return null;
            })).isInstanceOfSatisfying(RankFailedException.class, e -> assertThat(e.rank()).isEqualTo(2));
        }
        assertThat(failure.get()).isInstanceOfSatisfying(PeerFailedException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.UNAVAILABLE);
            assertThat(e.peer()).hasValue(2);
            assertThat(e).hasMessageStartingWith("rpc on rank 0 (world 3, comm 0, peer 2) cannot complete: rank 2");
        });
        assertThat(elapsed.get()).isLessThan(Duration.ofSeconds(10)); // the failure, not the 20s rpc.timeout
    }

    @Test
    void shouldTranslateRanksOnSplitCommunicators() {
        try (var cluster = start(4)) {
            cluster.run(c -> {
                // Odd and even world ranks, each numbered in reverse: world rank 3 is rank 0 of its communicator.
                Communicator sub = c.split(c.rank() % 2, -c.rank());
                sub.rpc().register(8, (ctx, req) -> text(sub.rank() + " of comm " + ctx.communicatorId()
                        + " called by " + ctx.caller()));
                sub.barrier();
                int peer = (sub.rank() + 1) % sub.worldSize();
                assertThat(text(sub.rpc().call(peer, 8, text("")))).isEqualTo(peer + " of comm " + sub.id()
                        + " called by " + sub.rank());
                // Functions belong to their communicator: the world has no function 8.
                assertThatThrownBy(() -> c.rpc().call((c.rank() + 1) % 4, 8, text("")))
                        .isInstanceOfSatisfying(RpcException.class, e -> assertThat(e.reason())
                                .isEqualTo(RpcException.Reason.UNKNOWN_FUNCTION));
                sub.barrier();
                sub.close();
                return null;
            });
        }
    }

    @Test
    void shouldNotDelayCollectivesOrOtherCallsWhileAHandlerBlocks() {
        var started = new CountDownLatch(1);
        var release = new CountDownLatch(1);
        try (var cluster = start(2)) {
            cluster.run(c -> {
                c.rpc().register(9, (ctx, req) -> {
                    started.countDown();
                    await(release, "released");
                    return text("slow done");
                });
                c.rpc().register(ECHO, (ctx, s) -> s);
                c.barrier();
                RpcCall<MemorySegment> slow = null;
                if (c.rank() == 0) {
                    slow = c.rpc().callAsync(1, 9, text(""));
                    await(started, "the slow handler started");
                }
                long[] sum = {c.rank() + 1};
                c.allReduce(sum, ReduceOp.SUM);
                assertThat(sum[0]).isEqualTo(3);
                c.barrier();
                if (c.rank() == 0) {
                    assertThat(c.rpc().call(1, ECHO, "fast")).isEqualTo("fast");
                    assertThat(slow.isDone()).isFalse();
                    release.countDown();
                    assertThat(text(slow.await())).isEqualTo("slow done");
                }
                c.barrier();
                return null;
            });
        }
    }

    @Test
    void shouldBackPressureCallersBeyondTheInFlightBound() {
        var started = new CountDownLatch(2);
        var release = new CountDownLatch(1);
        try (var cluster = start(2, config().rpcMaxInFlight(2).build())) {
            cluster.run(c -> {
                c.rpc().register(10, (ctx, req) -> {
                    started.countDown();
                    await(release, "released");
                    return req;
                });
                c.barrier();
                if (c.rank() == 0) {
                    List<RpcCall<MemorySegment>> held = List.of(c.rpc().callAsync(1, 10, text("a")),
                            c.rpc().callAsync(1, 10, text("b")));
                    await(started, "both handlers running");
                    assertThatThrownBy(() -> c.rpc().callAsync(1, 10, text("c"), Duration.ofMillis(200)))
                            .isInstanceOf(OperationTimeoutException.class)
                            .hasMessageContaining("waiting for a free slot to rank 1: 2 calls in flight (setting"
                                    + " rpc.max.in.flight)");
                    release.countDown();
                    assertThat(text(held.get(0).await())).isEqualTo("a");
                    assertThat(text(held.get(1).await())).isEqualTo("b");
                    assertThat(text(c.rpc().call(1, 10, text("d")))).isEqualTo("d");
                }
                c.barrier();
                return null;
            });
        }
    }

    @Test
    void shouldRejectCallerMistakesBeforeSending() {
        try (var cluster = start(2)) {
            Communicator c = cluster.communicator(0);
            assertThatThrownBy(() -> c.rpc().call(2, 1, new byte[0])).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("rank 2 is not in [0, 2)");
            assertThatThrownBy(() -> c.rpc().call(1, -1, new byte[0])).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("functionId -1 is negative");
            assertThatThrownBy(() -> c.rpc().call(1, 1, (MemorySegment) null))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("request must not be null");
            assertThatThrownBy(() -> c.rpc().register(-3, (ctx, r) -> r))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("functionId -3 is negative");
            long tooBig = c.rpc().maxPayloadBytes() + 1;
            assertThatThrownBy(() -> c.rpc().call(1, 1, MemorySegment.ofArray(new byte[(int) tooBig])))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("request of " + tooBig + " bytes exceeds the largest RPC payload");
        }
    }
}
