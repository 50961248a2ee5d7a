package io.nexar.transport.quic;

import static io.nexar.transport.quic.GrowFixtures.all;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.ClusterFormationException;
import io.nexar.Communicator;
import io.nexar.Growth;
import io.nexar.MembershipEvent;
import io.nexar.NexarConfig;
import io.nexar.OperationCancelledException;
import io.nexar.PeerFailedException;
import io.nexar.ReduceOp;
import io.nexar.testkit.Await;
import io.nexar.transport.quic.formation.SeedOptions;
import io.nexar.transport.quic.formation.SeedServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * grow() in one JVM over loopback QUIC, through a real seed and {@link QuicTransportProvider}: nothing happens while
 * nobody waits, a waiting worker is admitted with the state transfer run on every member, the grown world computes
 * correct results, setting {@code world.max.size} holds the next worker back, and closing the seed refuses it; after
 * an automatic recovery removed world rank 1, a newcomer gets world rank 3 and a table with a gap, and works.
 */
@Timeout(90)
class ElasticGrowTest {
    private static final Duration JOIN = Duration.ofSeconds(30);
    /** Bound on grow() calls while a worker's join request travels to the seed. */

    private static NexarConfig config(boolean elastic) {
        return NexarConfig.builder().ignoreEnvironment().worldMaxSize(3).joinElastic(elastic).build();
    }

    private static CompletableFuture<Communicator> join(String joinString, boolean elastic) {
        return join(joinString, config(elastic));
    }

    private static CompletableFuture<Communicator> join(String joinString, NexarConfig config) {
        return GrowFixtures.join(joinString, config, JOIN);
    }

    @Test
    void shouldGrowAfterARecoveryLeftAGapInTheWorldRanks() throws Exception {
        var options = SeedOptions.builder(3).bind("127.0.0.1:0").ca(QuicTestCluster.CA)
                .formationDeadline(Duration.ofSeconds(30)).build();
        NexarConfig automatic = NexarConfig.builder().ignoreEnvironment()
                .recoveryPolicy(io.nexar.RecoveryPolicy.AUTOMATIC).build();
        var all = new ArrayList<Communicator>();
        try (var seed = SeedServer.start(options)) {
            var joins = List.of(join(seed.joinString(), automatic), join(seed.joinString(), automatic),
                    join(seed.joinString(), automatic));
            for (var j : joins) {
                all.add(j.get(40, TimeUnit.SECONDS));
            }
            all.sort(java.util.Comparator.comparingInt(Communicator::rank));
            all.get(1).close(); // world rank 1 leaves politely: the others rebuild as world ranks {0, 2}
            var members = List.of(all.get(0), all.get(2));
            List<Integer> sizes = all(members, c -> {
                for (int attempt = 0; attempt < 3; attempt++) {
                    try {
                        c.barrier();
                        return c.worldSize();
                    } catch (io.nexar.PeerFailedException rebuilt) {
                        // the one notice of the rebuild; retry on the rebuilt world
                    }
                }
                throw new AssertionError("the world was not rebuilt");
            });
            assertThat(sizes).containsOnly(2);

            var joining = join(seed.joinString(), NexarConfig.builder().ignoreEnvironment()
                    .recoveryPolicy(io.nexar.RecoveryPolicy.AUTOMATIC).joinElastic(true).build());
            assertThat(all(members, GrowFixtures::growUntilAdmitted)).containsOnly(new Growth(2, 3, false));
            Communicator newcomer = joining.get(40, TimeUnit.SECONDS);
            all.add(newcomer);
            assertThat(newcomer.grow()).isEqualTo(new Growth(2, 3, true));
            assertThat(newcomer.rank()).isEqualTo(2);
            var world = List.of(all.get(0), all.get(2), newcomer);
            assertThat(world).extracting(Communicator::rank).containsExactly(0, 1, 2);
            for (float[] s : all(world, c -> {
                float[] x = {c.rank() + 1};
                c.allReduce(x, ReduceOp.SUM);
                return x;
            })) {
                assertThat(s).containsExactly(6);
            }
            // point to point between the newcomer (world rank 3) and a member across the gap
            List<Integer> got = all(List.of(all.get(0), newcomer), c -> {
                int[] v = {c.rank() == 0 ? 7 : 0};
                if (c.rank() == 0) {
                    c.send(2, 5, v);
                    return 7;
                }
                c.recv(0, 5, v);
                return v[0];
            });
            assertThat(got).containsExactly(7, 7);
        } finally {
            for (Communicator c : all) {
                c.close();
            }
        }
    }

    @Test
    void shouldAdmitAWaitingWorkerUpToTheMaximumWorldSize() throws Exception {
        var options = SeedOptions.builder(2).bind("127.0.0.1:0").ca(QuicTestCluster.CA)
                .formationDeadline(Duration.ofSeconds(30)).build();
        var members = new ArrayList<Communicator>();
        Communicator newcomer = null;
        CompletableFuture<Communicator> late = null;
        try (var seed = SeedServer.start(options)) {
            var a = join(seed.joinString(), false);
            var b = join(seed.joinString(), false);
            members.add(a.get(40, TimeUnit.SECONDS));
            members.add(b.get(40, TimeUnit.SECONDS));
            members.sort(java.util.Comparator.comparingInt(Communicator::rank));
            var events = new CopyOnWriteArrayList<MembershipEvent>();
            members.getFirst().watch(events::add);
            var transfers = new AtomicInteger();

            // nobody waits: nothing changes and the state transfer does not run
            assertThat(all(members, c -> c.grow(g -> transfers.incrementAndGet())))
                    .containsOnly(new Growth(2, 2, false));
            assertThat(transfers).hasValue(0);

            // a worker waits at the seed: the next grow() admits it as rank 2
            var joining = join(seed.joinString(), true);
            long[] state = {0};
            List<Growth> grown = all(members, c -> {
                for (int i = 0; i < GrowFixtures.MAX_POLLS; i++) {
                    Growth g = c.grow(x -> {
                        long[] s = {c.rank() == 0 ? 42 : 0};
                        c.broadcast(s, 0);
                        state[0] = s[0];
                        transfers.incrementAndGet();
                    });
                    if (g.grew()) {
                        return g;
                    }
                }
                throw new AssertionError("no worker admitted after " + GrowFixtures.MAX_POLLS + " grow() calls");
            });
            assertThat(grown).containsOnly(new Growth(2, 3, false));
            newcomer = joining.get(40, TimeUnit.SECONDS);
            assertThat(newcomer.rank()).isEqualTo(2);
            assertThat(newcomer.worldSize()).isEqualTo(3);
            // the newcomer's first grow() runs the state transfer the members are running now
            Communicator n = newcomer;
            long[] received = {0};
            Growth joined = n.grow(x -> {
                long[] s = {0};
                n.broadcast(s, 0);
                received[0] = s[0];
            });
            assertThat(joined).isEqualTo(new Growth(2, 3, true));
            assertThat(received[0]).isEqualTo(42);
            assertThat(transfers).hasValue(2);
            assertThat(events).anyMatch(e -> e instanceof MembershipEvent.Grown g && g.previousSize() == 2
                    && g.size() == 3);

            // all three compute together
            var world = new ArrayList<>(members);
            world.add(newcomer);
            List<float[]> sums = all(world, c -> {
                float[] x = {c.rank() + 1, 10};
                c.allReduce(x, ReduceOp.SUM);
                return x;
            });
            for (float[] s : sums) {
                assertThat(s).containsExactly(6, 30);
            }

            // world.max.size 3 is reached: a fourth worker waits at the seed and is not admitted
            late = join(seed.joinString(), true);
            Await.until(() -> seed.waiting() > 0, Duration.ofSeconds(30), "the fourth worker waits at the seed");
            assertThat(seed.waiting()).isEqualTo(1);
            assertThat(all(world, c -> c.grow())).containsOnly(new Growth(3, 3, false));
            assertThat(seed.waiting()).as("still waiting").isEqualTo(1);
        }
        // the seed closed: the waiting worker is refused with the reason
        CompletableFuture<Communicator> refused = late;
        assertThatThrownBy(() -> refused.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(ClusterFormationException.class)
                .hasMessageContaining("seed is shutting down");
        for (Communicator c : members) {
            c.close();
        }
        newcomer.close();
    }

    /**
     * grow() over QUIC throws the NexarException its javadoc names, never a CompletionException or ExecutionException
     * around it: interrupted while it waits for rank 0's offer (OperationCancelledException, interrupt status kept),
     * and on another member after that (PeerFailedException naming the interrupted rank). A member that crashes
     * during grow is NoWrapperEscapesTest's (in-process).
     */
    @Test
    void shouldThrowNexarExceptionsNotWrappersFromAnInterruptedOrFailedGrow() throws Exception {
        var options = SeedOptions.builder(3).bind("127.0.0.1:0").ca(QuicTestCluster.CA)
                .formationDeadline(Duration.ofSeconds(30)).build();
        var members = new ArrayList<Communicator>();
        try (var seed = SeedServer.start(options)) {
            var joins = List.of(join(seed.joinString(), false), join(seed.joinString(), false),
                    join(seed.joinString(), false));
            for (var j : joins) {
                members.add(j.get(40, TimeUnit.SECONDS));
            }
            members.sort(java.util.Comparator.comparingInt(Communicator::rank));

            // rank 0 never calls grow: rank 1 waits for its offer until interrupted
            var thrown = new java.util.concurrent.atomic.AtomicReference<Throwable>();
            var flagKept = new java.util.concurrent.atomic.AtomicBoolean();
            Thread t = Thread.ofPlatform().name("growing").start(() -> {
                thrown.set(thrownBy(() -> members.get(1).grow()));
                flagKept.set(Thread.currentThread().isInterrupted());
            });
            awaitBlocked(t);
            t.interrupt();
            t.join();
            assertThat(thrown.get()).isInstanceOf(OperationCancelledException.class)
                    .hasMessageContaining("waiting for rank 0");
            assertThat(flagKept).as("interrupt status kept").isTrue();

            // the interrupted call failed that broadcast on every member: rank 2's grow is told so, by rank 1
            assertThat(thrownBy(() -> members.get(2).grow())).isInstanceOf(PeerFailedException.class)
                    .hasMessageContaining("rank 1 failed it").hasMessageContaining("was interrupted");
        } finally {
            for (Communicator c : members) {
                c.close();
            }
        }
    }

    /** What {@code body} throws, or null. */
    private static Throwable thrownBy(Runnable body) {
        try {
            body.run();
            return null;
        } catch (Throwable e) {
            return e;
        }
    }

    /** Waits (an event: the thread's state, no timer) until {@code t} is parked or ended, for at most 30 s. */
    private static void awaitBlocked(Thread t) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Thread.State s;
        while ((s = t.getState()) != Thread.State.WAITING && s != Thread.State.TIMED_WAITING
                && s != Thread.State.TERMINATED) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError(t.getName() + " did not block within 30 s");
            }
            Thread.onSpinWait();
        }
    }
}
