package io.nexar.internal.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A refused sender's wait for room: never a lost wake-up, whichever comes first. */
@Timeout(10)
class RoomSignalTest {
    private final RoomSignal room = new RoomSignal();

    @Test
    void aSenderRefusedJustBeforeRoomWasFreedDoesNotWait() throws InterruptedException {
        long seen = room.epoch(); // read before its attempt to deliver
        room.freed();             // room freed between its attempt and its wait
        long start = System.nanoTime();
        room.await(seen, TimeUnit.SECONDS.toNanos(30));
        assertThat(System.nanoTime() - start).as("returned at once, not after 30 s")
                .isLessThan(TimeUnit.SECONDS.toNanos(5));
    }

    @Test
    void aWaitingSenderIsWokenWhenRoomIsFreed() throws InterruptedException {
        long seen = room.epoch();
        var done = new CountDownLatch(1);
        Thread sender = Thread.ofPlatform().start(() -> {
            try {
                room.await(seen, TimeUnit.SECONDS.toNanos(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            done.countDown();
        });
        while (sender.getState() != Thread.State.TIMED_WAITING) { // parked in its wait (bounded by the timeout)
            Thread.onSpinWait();
        }
        room.freed();
        assertThat(done.await(5, TimeUnit.SECONDS)).as("woken by freed(), not by its 30 s timeout").isTrue();
        sender.join();
    }

    @Test
    void theEpochCountsEveryFreeing() {
        long before = room.epoch();
        room.freed();
        room.freed();
        assertThat(room.epoch()).isEqualTo(before + 2);
    }
}
