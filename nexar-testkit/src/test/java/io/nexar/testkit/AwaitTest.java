package io.nexar.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class AwaitTest {

    @Test
    void returnsOnceTheConditionHolds() {
        var polls = new AtomicInteger();
        Await.until(() -> polls.incrementAndGet() == 3, Duration.ofSeconds(5), "the third poll");
        assertThat(polls).hasValue(3);
    }

    @Test
    void failsAtItsDeadlineNamingWhatItWaitedFor() {
        assertThatThrownBy(() -> Await.until(() -> false, Duration.ofMillis(20), "the lane drains"))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("timed out after 20 ms waiting until the lane drains");
    }

    @Test
    void seesAnotherThreadWaitAndFailsIfItEndsInstead() throws Exception {
        var release = new CountDownLatch(1);
        Thread waiting = Thread.ofPlatform().name("parked").start(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Await.untilWaiting(waiting, Duration.ofSeconds(5), "the latch is awaited");
        release.countDown();
        waiting.join();
        assertThatThrownBy(() -> Await.untilWaiting(waiting, Duration.ofSeconds(5), "the latch is awaited"))
                .isInstanceOf(AssertionError.class).hasMessageContaining("parked ended instead of waiting until");
    }
}
