package io.nexar.internal.comm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The "announce each rebuild once" state under concurrent callers: however many threads find the same new generation
 * at once, exactly one announces it, and none announces a generation that was acknowledged.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RebuildAnnouncementsTest {
    private static final int THREADS = 8;
    private static final int GENERATIONS = 5_000;

    /** What thread {@code thread} does with generation {@code generation}. */
    private interface Step {
        void run(int thread, int generation);
    }

    /** Runs {@code step} on {@link #THREADS} threads for each generation, the threads released together each time. */
    private static void race(Step step) throws InterruptedException {
        var barrier = new CyclicBarrier(THREADS);
        List<Thread> threads = new ArrayList<>();
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            threads.add(Thread.ofPlatform().name("caller-" + t).start(() -> {
                try {
                    for (int g = 1; g <= GENERATIONS; g++) {
                        barrier.await(30, TimeUnit.SECONDS);
                        step.run(thread, g);
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void shouldLetExactlyOneOfManyRacingCallersAnnounceEachGeneration() throws Exception {
        var announcements = new RebuildAnnouncements(0);
        var claims = new AtomicIntegerArray(GENERATIONS + 1);
        race((thread, g) -> {
            if (announcements.claim(g)) {
                claims.incrementAndGet(g);
            }
        });
        for (int g = 1; g <= GENERATIONS; g++) {
            assertThat(claims.get(g)).as("callers that announced generation %d", g).isEqualTo(1);
        }
        assertThat(announcements.acknowledged()).isEqualTo(GENERATIONS);
    }

    @Test
    void shouldNotAnnounceAGenerationAFailedOperationAcknowledged() throws Exception {
        var announcements = new RebuildAnnouncements(0);
        var claims = new AtomicIntegerArray(GENERATIONS + 1);
        race((thread, g) -> {
            if (thread == 0) { // its own operation failed: its exception told the application
                announcements.acknowledge(g);
            } else if (announcements.claim(g)) {
                claims.incrementAndGet(g);
            }
        });
        for (int g = 1; g <= GENERATIONS; g++) { // announced before the acknowledgement landed, or not at all
            assertThat(claims.get(g)).as("callers that announced generation %d", g).isBetween(0, 1);
        }
        assertThat(announcements.claim(GENERATIONS)).as("an acknowledged generation is not announced").isFalse();
    }

    @Test
    void shouldAnnounceOnlyRisesAndNeverLowerTheAcknowledgedGeneration() {
        var announcements = new RebuildAnnouncements(2);
        assertThat(announcements.claim(2)).as("the starting generation needs no announcement").isFalse();
        assertThat(announcements.claim(4)).isTrue();
        assertThat(announcements.claim(4)).isFalse();
        announcements.acknowledge(3);
        assertThat(announcements.acknowledged()).isEqualTo(4);
        announcements.acknowledge(6);
        assertThat(announcements.claim(5)).isFalse();
        assertThat(announcements.claim(6)).isFalse();
        assertThat(announcements.claim(7)).isTrue();
    }
}
