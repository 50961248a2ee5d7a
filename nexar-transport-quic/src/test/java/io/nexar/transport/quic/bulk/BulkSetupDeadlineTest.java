package io.nexar.transport.quic.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.internal.util.Deadline;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A dialled bulk connection always has more time for its setup than the acceptor's fixed budget, so that a slow setup
 * is abandoned by the acceptor (before it attached anything) rather than by the dialer after the acceptor attached its
 * lane: on a loaded machine the dialer used to get what was left of the formation deadline, sometimes 0 ms, gave up,
 * and the acceptor took its close for a dead peer.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class BulkSetupDeadlineTest {
    @Test
    void shouldGiveADialTwiceTheAcceptorsBudgetWhenFormationHasLittleTimeLeft() {
        for (Duration left : new Duration[] {Duration.ZERO, Duration.ofMillis(136), Duration.ofSeconds(19)}) {
            Deadline dial = BulkEndpoint.dialDeadline(Deadline.after(left));
            assertThat(dial.remainingNanos())
                    .as("dial setup budget when the formation has %s left", left)
                    .isGreaterThan(BulkEndpoint.ACCEPT_SETUP.multipliedBy(2).minusSeconds(1).toNanos());
        }
    }

    @Test
    void shouldKeepTheFormationDeadlineWhenItIsLater() {
        Deadline formation = Deadline.after(Duration.ofSeconds(55));
        assertThat(BulkEndpoint.dialDeadline(formation)).isSameAs(formation);
        assertThat(BulkEndpoint.MIN_DIAL_SETUP).isGreaterThan(BulkEndpoint.ACCEPT_SETUP);
    }
}
