package io.nexar.internal.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Driven by a manual clock: no sleeps, every timing exact. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class FailureDetectorTest {
    private static final long MS = 1_000_000L;
    private final AtomicLong now = new AtomicLong(1_000 * MS);
    private final FailureDetector detector = new FailureDetector(0, 4, Duration.ofMillis(100),
            Duration.ofMillis(500), now::get);

    private void advance(long millis) {
        now.addAndGet(millis * MS);
    }

    @Test
    void shouldSuspectAPeerOnlyAfterTheTimeoutOfSilence() {
        advance(500);
        assertThat(detector.newlySuspected()).isEmpty();
        advance(1);
        assertThat(detector.newlySuspected()).containsExactly(1, 2, 3);
        assertThat(detector.newlySuspected()).as("each peer is reported once").isEmpty();
    }

    @Test
    void shouldCountWhatIsReceivedPerPeer() {
        advance(400);
        detector.onReceived(2);
        advance(101);
        assertThat(detector.newlySuspected()).containsExactly(1, 3);
        assertThat(detector.isSuspected(2)).isFalse();
        assertThat(detector.silentNanos(2)).isEqualTo(101 * MS);
        advance(400);
        assertThat(detector.newlySuspected()).containsExactly(2);
    }

    @Test
    void shouldNotReviveASuspectedPeer() {
        advance(501);
        assertThat(detector.newlySuspected()).contains(1);
        detector.onReceived(1);
        assertThat(detector.isSuspected(1)).isTrue();
        assertThat(detector.heartbeatsDue()).doesNotContain(1);
    }

    @Test
    void shouldScheduleHeartbeatsPerPeerEveryInterval() {
        assertThat(detector.heartbeatsDue()).containsExactly(1, 2, 3);
        assertThat(detector.heartbeatsDue()).isEmpty();
        advance(99);
        assertThat(detector.heartbeatsDue()).isEmpty();
        advance(1);
        assertThat(detector.heartbeatsDue()).containsExactly(1, 2, 3);
    }

    @Test
    void shouldWakeAtTheNextHeartbeatOrTimeout() {
        detector.heartbeatsDue();
        assertThat(detector.nextWakeNanos()).isEqualTo(now.get() + 100 * MS);
        var slow = new FailureDetector(0, 2, Duration.ofMillis(400), Duration.ofMillis(500), now::get);
        slow.heartbeatsDue();
        advance(300);
        assertThat(slow.nextWakeNanos()).isEqualTo(now.get() + 100 * MS);
    }

    @Test
    void shouldRejectATimeoutNotAboveTheInterval() {
        assertThatThrownBy(() -> new FailureDetector(0, 2, Duration.ofSeconds(1), Duration.ofSeconds(1), now::get))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("heartbeat timeout PT1S must be greater than the heartbeat interval PT1S");
    }
}
