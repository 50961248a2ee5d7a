package io.nexar.internal.collective;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** When a stalled round sends its fingerprint probes. */
@Timeout(10)
class MismatchProbeTest {

    @Test
    void shouldProbeAfterOneSecondOrAnEighthOfAShortBudget() {
        assertThat(MismatchProbe.afterNanos(TimeUnit.SECONDS.toNanos(30))).isEqualTo(TimeUnit.SECONDS.toNanos(1));
        assertThat(MismatchProbe.afterNanos(TimeUnit.SECONDS.toNanos(4))).isEqualTo(TimeUnit.MILLISECONDS.toNanos(500));
        assertThat(MismatchProbe.afterNanos(4)).isEqualTo(1);
    }

    @Test
    void shouldTreatAnOverflowedBudgetAsLarge() {
        long farDeadline = Long.MAX_VALUE;
        long posted = -5; // System.nanoTime may be negative
        assertThat(MismatchProbe.afterNanos(farDeadline - posted)).isEqualTo(MismatchProbe.AFTER_NANOS);
    }
}
