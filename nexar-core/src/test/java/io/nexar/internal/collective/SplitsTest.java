package io.nexar.internal.collective;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The id candidates of split: positive, never the world's 0, different per input, and the same on every call. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SplitsTest {

    @Test
    void candidatesArePositiveDeterministicAndDistinct() {
        var seen = new HashSet<Integer>();
        int total = 0;
        for (int parent : new int[] {0, 1, 977_321, Integer.MAX_VALUE}) {
            for (long seq = 0; seq < 50; seq++) {
                for (int color = 0; color < 20; color++) {
                    for (int attempt = 0; attempt < 2; attempt++) {
                        int id = Splits.deriveId(parent, seq, color, attempt);
                        assertThat(id).isPositive();
                        assertThat(Splits.deriveId(parent, seq, color, attempt)).isEqualTo(id);
                        seen.add(id);
                        total++;
                    }
                }
            }
        }
        // 8000 candidates in a 2^31 space: a collision here would mean a poor mix, not bad luck (p ~ 1.5e-2)
        assertThat(seen).hasSizeGreaterThanOrEqualTo(total - 1);
    }
}
