package io.nexar.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class ProgressTest {

    /** Records every call; "done" after {@code polls} polls of any kind. */
    private static final class Recorder implements Progress {
        final List<String> calls = new ArrayList<>();
        final long window;

        Recorder(long window) {
            this.window = window;
        }

        @Override
        public boolean poll(Lane lane) {
            calls.add("all");
            return false;
        }

        @Override
        public boolean poll(Lane lane, int worldPeer) {
            calls.add("peer" + worldPeer);
            return false;
        }

        @Override
        public void handBack(Lane lane) {
            calls.add("handBack");
        }

        @Override
        public long pollNanos() {
            return window;
        }

        int polls() {
            return (int) calls.stream().filter(c -> !c.equals("handBack")).count();
        }
    }

    private static long far() {
        return System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    }

    @Test
    void aThreadWaitingForOnePeerReadsItAndEveryPeerAtEveryEighthPoll() throws InterruptedException {
        var p = new Recorder(TimeUnit.SECONDS.toNanos(30));
        boolean done = p.pollUntil(Lane.COLLECTIVE, () -> p.polls() == 16, far(), 3);
        assertThat(done).isTrue();
        var expected = new ArrayList<String>();
        for (int i = 0; i < 2; i++) {
            expected.addAll(List.of("peer3", "peer3", "peer3", "peer3", "peer3", "peer3", "peer3", "all"));
        }
        assertThat(p.calls).isEqualTo(expected); // done: no hand-back
    }

    @Test
    void withoutAHintEveryPollReadsEveryPeer() throws InterruptedException {
        var p = new Recorder(TimeUnit.SECONDS.toNanos(30));
        assertThat(p.pollUntil(Lane.P2P, () -> p.polls() == 3, far())).isTrue();
        assertThat(p.calls).containsExactly("all", "all", "all");
    }

    @Test
    void whenTheWindowEndsTheLaneIsHandedBack() throws InterruptedException {
        var p = new Recorder(1); // one nanosecond: ends after the first poll
        assertThat(p.pollUntil(Lane.COLLECTIVE, () -> false, far(), 2)).isFalse();
        assertThat(p.calls).last().isEqualTo("handBack");
        assertThat(p.calls).startsWith("peer2");
    }

    @Test
    void aZeroWindowNeverPolls() throws InterruptedException {
        var p = new Recorder(0);
        assertThat(p.pollUntil(Lane.COLLECTIVE, () -> false, far(), 2)).isFalse();
        assertThat(p.calls).isEmpty();
    }

    @Test
    void aVirtualThreadReadsOnceAndHandsTheLaneBackWithinAnyWindow() throws Exception {
        var p = new Recorder(TimeUnit.SECONDS.toNanos(30)); // a platform thread would poll for 30 s
        var outcome = new boolean[2];
        Thread.ofVirtual().start(() -> {
            try {
                outcome[0] = p.pollUntil(Lane.COLLECTIVE, () -> false, far(), 2);
                outcome[1] = p.pollUntil(Lane.P2P, () -> false, far());
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }).join();
        assertThat(outcome).containsExactly(false, false);
        assertThat(p.calls).containsExactly("peer2", "handBack", "all", "handBack");
    }

    @Test
    void aVirtualThreadWhoseReadCompletesTheWaitKeepsTheLane() throws Exception {
        var p = new Recorder(TimeUnit.SECONDS.toNanos(30));
        var done = new boolean[1];
        Thread.ofVirtual().start(() -> {
            try {
                done[0] = p.pollUntil(Lane.COLLECTIVE, () -> p.polls() == 1, far(), 1);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }).join();
        assertThat(done[0]).isTrue();
        assertThat(p.calls).containsExactly("peer1");
    }
}
