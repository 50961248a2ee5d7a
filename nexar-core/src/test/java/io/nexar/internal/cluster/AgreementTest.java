package io.nexar.internal.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.internal.cluster.Agreement.Outcome;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The agreement on a simulated network: messages delivered in a random order, members crashing at random points
 * (also in the middle of sending a round of messages), crashes noticed by each survivor at a random later time.
 * Safety: every survivor that decides decides the same set. Liveness: with a majority alive, every survivor decides.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AgreementTest {

    private record InFlight(int from, int to, Message.Agree message) {
    }

    @Test
    void shouldDecideTheCrashedRankWhenOneOfFourFails() {
        var sim = new Sim(4, new Random(1));
        sim.crash(2);
        sim.noticeAll(2);
        sim.run();

        for (int r : new int[] {0, 1, 3}) {
            assertThat(sim.nodes[r].outcome()).isEqualTo(Outcome.DECIDED);
            assertThat(sim.nodes[r].decided()).containsExactly(2);
        }
    }

    @Test
    void shouldAgreeWhenTheCoordinatorDiesDuringTheAgreement() {
        for (int seed = 0; seed < 200; seed++) {
            var sim = new Sim(5, new Random(seed));
            sim.crash(3);
            sim.noticeAll(3);
            sim.crashAfterSends(0, 1 + new Random(seed).nextInt(8)); // the first coordinator dies part-way
            sim.run();
            sim.assertAgreement(seed);
        }
    }

    @Test
    void shouldAlwaysAgreeUnderRandomCrashesAndDeliveryOrders() {
        long base = Long.getLong("nexar.test.seed", System.nanoTime());
        System.out.println("AgreementTest seed " + base);
        for (int i = 0; i < 2000; i++) {
            long seed = base + i;
            var rnd = new Random(seed);
            int n = 3 + rnd.nextInt(6);
            var sim = new Sim(n, rnd);
            int crashes = rnd.nextInt((n - 1) / 2 + 1); // keep a majority alive
            for (int c = 0; c < crashes; c++) {
                int victim = rnd.nextInt(n);
                if (rnd.nextBoolean()) {
                    sim.crash(victim);
                    sim.noticeAll(victim);
                } else {
                    sim.crashAfterSends(victim, rnd.nextInt(12));
                }
            }
            sim.run();
            sim.assertAgreement(seed);
        }
    }

    @Test
    void shouldExcludeAFalselySuspectedRank() {
        var sim = new Sim(4, new Random(7));
        sim.notice(0, 3); // only rank 0 suspects rank 3 (a partition), rank 3 is alive
        sim.run();

        assertThat(sim.nodes[3].outcome()).isEqualTo(Outcome.EXCLUDED); // told by the best-effort DECIDE
        for (int r : new int[] {0, 1, 2}) {
            assertThat(sim.nodes[r].decided()).containsExactly(3);
        }
    }

    @Test
    void shouldRefuseToDecideWithoutAMajority() {
        var sim = new Sim(4, new Random(3));
        sim.crash(2);
        sim.crash(3);
        sim.noticeAll(2);
        sim.noticeAll(3);
        sim.run();

        assertThat(sim.nodes[0].outcome()).isEqualTo(Outcome.NO_QUORUM);
        assertThat(sim.nodes[1].outcome()).isEqualTo(Outcome.NO_QUORUM);
    }

    @Test
    void shouldEncodeAndDecodeEveryMessage() {
        var a = new Agreement(9, 2, 0, new int[] {0, 1, 2});
        a.suspect(2);
        a.start();
        for (var s : a.drainOutbox()) {
            long size = MessageCodec.encodedSize(s.message());
            var frame = MemorySegment.ofArray(new byte[(int) size]);
            MessageCodec.encode(s.message(), frame);
            var back = (Message.Agree) MessageCodec.decode(0, frame, 1 << 20);
            assertThat(back.communicator()).isEqualTo(9);
            assertThat(back.generation()).isEqualTo(2);
            assertThat(back.kind()).isEqualTo(s.message().kind());
            assertThat(back.failed()).containsExactly(2);
            assertThat(back.acceptedBallot()).isNull();
        }
    }

    /** N members on a network that delivers messages in random order; crashes and failure notices are scripted. */
    private static final class Sim {
        final Agreement[] nodes;
        final boolean[] crashed;
        final int[] sendBudget;
        final Random rnd;
        final List<InFlight> net = new ArrayList<>();
        final List<int[]> notices = new ArrayList<>(); // {observer, victim}

        Sim(int n, Random rnd) {
            this.rnd = rnd;
            int[] members = new int[n];
            Arrays.setAll(members, i -> i);
            nodes = new Agreement[n];
            crashed = new boolean[n];
            sendBudget = new int[n];
            Arrays.fill(sendBudget, Integer.MAX_VALUE);
            for (int i = 0; i < n; i++) {
                nodes[i] = new Agreement(5, 0, i, members);
            }
        }

        void crash(int r) {
            crashed[r] = true;
        }

        /** Rank r crashes after sending {@code sends} more messages; everyone notices later. */
        void crashAfterSends(int r, int sends) {
            sendBudget[r] = sends;
        }

        void notice(int observer, int victim) {
            notices.add(new int[] {observer, victim});
        }

        void noticeAll(int victim) {
            for (int i = 0; i < nodes.length; i++) {
                if (i != victim) {
                    notice(i, victim);
                }
            }
        }

        void run() {
            for (int i = 0; i < nodes.length; i++) {
                if (!crashed[i]) {
                    nodes[i].start();
                    flush(i);
                }
            }
            for (int step = 0; step < 1_000_000; step++) {
                // crashes by budget become noticed by everyone, at random times
                int pending = net.size() + notices.size();
                if (pending == 0) {
                    return;
                }
                int pick = rnd.nextInt(pending);
                if (pick < notices.size()) {
                    int[] n = notices.remove(pick);
                    if (!crashed[n[0]]) {
                        trace("notice " + n[0] + " suspects " + n[1]);
                        nodes[n[0]].suspect(n[1]);
                        flush(n[0]);
                    }
                    continue;
                }
                // links are ordered (one QUIC stream per pair): deliver the oldest message of the picked one's link
                InFlight picked = net.get(pick - notices.size());
                int at = 0;
                while (net.get(at).from() != picked.from() || net.get(at).to() != picked.to()) {
                    at++;
                }
                InFlight m = net.remove(at);
                if (!crashed[m.to()]) {
                    trace("deliver " + m.from() + "->" + m.to() + " " + m.message().kind() + " f="
                            + Arrays.toString(m.message().failed()) + " b="
                            + Arrays.toString(m.message().acceptedBallot()) + " v="
                            + Arrays.toString(m.message().value()) + " => " + nodes[m.to()].outcome());
                    nodes[m.to()].onMessage(m.from(), m.message());
                    flush(m.to());
                }
            }
            throw new AssertionError("did not settle in 1,000,000 steps");
        }

        static final boolean TRACE = Boolean.getBoolean("nexar.test.trace");

        static void trace(String s) {
            if (TRACE) {
                System.out.println(s);
            }
        }

        void flush(int r) {
            for (var s : nodes[r].drainOutbox()) {
                if (crashed[r]) {
                    return;
                }
                if (sendBudget[r] == 0) {
                    trace("crash " + r);
                    crashed[r] = true;
                    noticeAll(r);
                    return;
                }
                if (sendBudget[r] != Integer.MAX_VALUE) {
                    sendBudget[r]--;
                }
                net.add(new InFlight(r, s.to(), s.message()));
            }
        }

        void assertAgreement(long seed) {
            Set<String> decisions = new HashSet<>();
            Set<Integer> dead = new TreeSet<>();
            for (int i = 0; i < nodes.length; i++) {
                if (crashed[i]) {
                    dead.add(i);
                }
            }
            for (int i = 0; i < nodes.length; i++) {
                if (crashed[i]) {
                    continue;
                }
                Agreement a = nodes[i];
                assertThat(a.outcome()).as("seed %d rank %d (dead %s)", seed, i, dead).isEqualTo(Outcome.DECIDED);
                decisions.add(Arrays.toString(a.decided()));
                for (int d : a.decided()) {
                    assertThat(crashed[d]).as("seed %d: decided %s excludes live rank %d", seed,
                            Arrays.toString(a.decided()), d).isTrue();
                }
            }
            assertThat(decisions).as("seed %d: survivors decided differently", seed).hasSizeLessThanOrEqualTo(1);
        }
    }
}
