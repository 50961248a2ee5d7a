package io.nexar.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.CollectiveHandle;
import io.nexar.Communicator;
import io.nexar.NexarConfig;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.ReduceOp;
import io.nexar.testkit.TestCluster;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Communicator#group} and {@link Communicator#withTimeout} (issue 18 item 3), for every transport: a transport's
 * test is a one-line subclass that says how to start a {@link TestCluster}. No test sleeps; the deadline tests bound
 * the time a call takes to fail, far below the settings' timeouts.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class GroupAndDeadlineContract {
    /** The settings' timeouts in these tests: a per-call deadline must end a wait long before them. */
    private static final Duration GLOBAL = Duration.ofSeconds(60);
    private static final Duration PER_CALL = Duration.ofMillis(200);
    /** A generous bound for a call under {@link #PER_CALL} to fail in, on a loaded machine. */
    private static final Duration FAILS_WITHIN = Duration.ofSeconds(15);

    /** For subclasses, which say how to start a cluster. */
    protected GroupAndDeadlineContract() {
    }

    /**
     * Starts {@code worldSize} connected ranks with {@code config}.
     *
     * @param worldSize the number of ranks
     * @param config the configuration of every rank
     * @return the started cluster, closed by the test
     */
    protected abstract TestCluster start(int worldSize, NexarConfig config);

    private static NexarConfig config() {
        return NexarConfig.builder().ignoreEnvironment().p2pTimeout(GLOBAL).collectiveTimeout(GLOBAL).build();
    }

    @Test
    void groupsOfListedRanksAreNumberedByPositionAndOnlyTheirMembersCallThem() {
        // 5 ranks: {3, 0} and {2, 1} make groups at the same time, rank 4 makes none
        try (var cluster = start(5, config())) {
            var ids = cluster.onEachRank(c -> {
                int[] list = switch (c.rank()) {
                    case 0, 3 -> new int[] {3, 0};
                    case 1, 2 -> new int[] {2, 1};
                    default -> null;
                };
                if (list == null) {
                    c.barrier();
                    return List.<Integer>of();
                }
                Communicator g = c.group(list);
                int position = list[0] == c.rank() ? 0 : 1;
                assertThat(g.worldSize()).isEqualTo(2);
                assertThat(g.rank()).as("rank %d in group%s", c.rank(), java.util.Arrays.toString(list))
                        .isEqualTo(position);
                var parents = new int[2];
                g.allGather(new int[] {c.rank()}, parents);
                assertThat(parents).containsExactly(list);
                g.send(1 - g.rank(), 5, new int[] {c.rank()});
                var got = new int[1];
                g.recv(1 - g.rank(), 5, got);
                assertThat(got[0]).isEqualTo(list[1 - position]);
                // the same list again: a new communicator, its own id
                Communicator again = c.group(list);
                var sum = new long[] {c.rank()};
                again.allReduce(sum, ReduceOp.SUM);
                assertThat(sum[0]).isEqualTo(list[0] + list[1]);
                int gid = g.id();
                int againId = again.id();
                again.close();
                g.close();
                c.barrier(); // the parent is still open, and rank 4 was free meanwhile
                return List.of(gid, againId);
            });
            var members = new HashMap<Integer, Set<Integer>>();
            ids.forEach((rank, list) -> list.forEach(id -> members.computeIfAbsent(id, k -> new TreeSet<>())
                    .add(rank)));
            assertThat(members.values()).containsExactlyInAnyOrder(Set.of(0, 3), Set.of(0, 3), Set.of(1, 2),
                    Set.of(1, 2));
            assertThat(members).doesNotContainKey(0);
        }
    }

    @Test
    void aGroupOfASubsetRunsEveryKindOfCallAndNestsInASplit() {
        try (var cluster = start(4, config())) {
            cluster.run(c -> {
                Communicator half = c.split(c.rank() / 2, c.rank()); // {0, 1} and {2, 3}
                if (c.rank() % 2 == 0) {
                    Communicator one = half.group(half.rank()); // a group of the caller alone
                    assertThat(one.worldSize()).isEqualTo(1);
                    var x = new float[] {c.rank()};
                    one.allReduce(x, ReduceOp.SUM);
                    assertThat(x[0]).isEqualTo(c.rank());
                    one.close();
                }
                Communicator evens = c.rank() % 2 == 0 ? c.group(0, 2) : c.group(3, 1);
                var x = new int[] {c.rank() + 1};
                evens.allReduce(x, ReduceOp.MAX);
                assertThat(x[0]).isEqualTo(c.rank() % 2 == 0 ? 3 : 4);
                evens.barrier();
                evens.close();
                half.close();
                return null;
            });
        }
    }

    @Test
    void aBadRankListIsRefusedBeforeAnythingIsSent() {
        try (var cluster = start(3, config())) {
            cluster.run(c -> {
                String where = "group on rank " + c.rank() + " (world 3, comm " + c.id() + "): ";
                assertThatThrownBy(() -> c.group()).isInstanceOf(IllegalArgumentException.class)
                        .hasMessage(where + "group() needs at least one rank");
                assertThatThrownBy(() -> c.group(c.rank(), 3)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessage(where + "rank 3 of group(" + c.rank() + ", 3) is out of range [0, 3)");
                assertThatThrownBy(() -> c.group(c.rank(), -1)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("rank -1 of group");
                assertThatThrownBy(() -> c.group(c.rank(), c.rank())).isInstanceOf(IllegalArgumentException.class)
                        .hasMessage(where + "rank " + c.rank() + " is listed twice in group(" + c.rank() + ", "
                                + c.rank() + ")");
                int other = (c.rank() + 1) % 3;
                assertThatThrownBy(() -> c.group(other)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessage(where + "group(" + other + ") does not list the caller, rank " + c.rank()
                                + "; only the listed ranks call group()");
                assertThatThrownBy(() -> c.group((int[]) null)).isInstanceOf(NullPointerException.class);
                c.barrier(); // nothing was sent: the world is in step
                return null;
            });
        }
    }

    @Test
    void aRecvWithoutASenderFailsAtThePerCallDeadline() {
        try (var cluster = start(2, config())) {
            cluster.run(c -> {
                Communicator timed = c.withTimeout(PER_CALL);
                assertThat(timed.rank()).isEqualTo(c.rank());
                assertThat(timed.id()).isEqualTo(c.id());
                if (c.rank() == 0) {
                    long start = System.nanoTime();
                    assertThatThrownBy(() -> timed.recv(1, 77, new byte[8]))
                            .isInstanceOfSatisfying(OperationTimeoutException.class,
                                    e -> assertThat(e.timeout()).isEqualTo(PER_CALL))
                            .hasMessageStartingWith("recv on rank 0").hasMessageContaining("timed out after 200ms");
                    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(FAILS_WITHIN);
                }
                c.barrier();
                // the view is the same communicator: a message sent through it is received by the plain one
                if (c.rank() == 0) {
                    timed.send(1, 78, new int[] {42});
                } else {
                    var x = new int[1];
                    c.recv(0, 78, x);
                    assertThat(x[0]).isEqualTo(42);
                }
                // a view of a view has the new deadline; the plain communicator keeps the settings'
                assertThat(timed.withTimeout(Duration.ofSeconds(1)).toString()).endsWith("with timeout 1s");
                assertThatThrownBy(() -> c.withTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("withTimeout needs a positive timeout, not 0s");
                return null;
            });
        }
    }

    @Test
    void aBarrierWithAMissingRankFailsAtThePerCallDeadlineBlockingAndAsync() {
        try (var cluster = start(3, config())) {
            cluster.run(c -> {
                if (c.rank() == 2) {
                    return null; // never calls the barrier
                }
                Communicator timed = c.withTimeout(PER_CALL);
                long start = System.nanoTime();
                failsAtThePerCallDeadline(assertThatThrownBy(timed::barrier), "barrier on rank " + c.rank());
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(FAILS_WITHIN);
                return null;
            });
        }
        try (var cluster = start(3, config())) {
            cluster.run(c -> {
                if (c.rank() == 2) {
                    return null;
                }
                long start = System.nanoTime();
                CollectiveHandle h = c.withTimeout(PER_CALL).allReduceAsync(
                        java.lang.foreign.MemorySegment.ofArray(new float[4]),
                        java.lang.foreign.MemorySegment.ofArray(new float[4]), io.nexar.DataType.F32, 4, ReduceOp.SUM);
                failsAtThePerCallDeadline(assertThatThrownBy(h::await), "allReduce on rank " + c.rank());
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(FAILS_WITHIN);
                return null;
            });
        }
    }

    /**
     * A collective under a per-call deadline fails with the timeout on this rank, or, when another rank's deadline
     * passed first and it failed the operation everywhere, with a {@link PeerFailedException} that carries that
     * timeout.
     */
    private static void failsAtThePerCallDeadline(AbstractThrowableAssert<?, ? extends Throwable> thrown,
                                                  String operation) {
        thrown.hasMessageStartingWith(operation).hasMessageContaining("timed out after 200ms")
                .satisfiesAnyOf(e -> assertThat(e).isInstanceOfSatisfying(OperationTimeoutException.class,
                        t -> assertThat(t.timeout()).isEqualTo(PER_CALL)),
                        e -> assertThat(e).isInstanceOf(PeerFailedException.class));
    }
}
