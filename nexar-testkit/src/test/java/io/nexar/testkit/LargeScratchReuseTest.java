package io.nexar.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.NexarConfig;
import io.nexar.ReduceOp;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A blocking call whose schedule needs a scratch buffer larger than the one kept with the operation state (a large
 * reduce-scatter) reuses the last call's buffer, zeroed: repeated calls with other values and other sizes in between
 * stay exact.
 */
@Timeout(120)
class LargeScratchReuseTest {

    @Test
    void repeatedLargeReduceScattersStayExactWhenTheirScratchIsReused() {
        int n = 3;
        var config = NexarConfig.builder().ignoreEnvironment().build();
        try (var cluster = LocalCluster.start(n, config, Duration.ofSeconds(45))) {
            Map<Integer, Integer> checked = cluster.onEachRank(c -> {
                int block = 40_000; // scratch: two blocks of f32, 320,000 bytes, above the 64 KiB kept with the state
                int calls = 0;
                for (int round = 0; round < 4; round++) {
                    int per = round == 2 ? block / 2 : block; // another size in between: a new buffer, then back
                    float[] in = new float[per * n];
                    for (int i = 0; i < in.length; i++) {
                        in[i] = (c.rank() + 1) * (i % 97) + round;
                    }
                    float[] out = new float[per];
                    c.reduceScatter(in, out, ReduceOp.SUM);
                    for (int j = 0; j < per; j++) {
                        int i = c.rank() * per + j;
                        float want = 6f * (i % 97) + 3f * round; // ranks 1, 2 and 3 times the pattern, plus round
                        assertThat(out[j]).as("rank %d round %d element %d", c.rank(), round, j).isEqualTo(want);
                    }
                    calls++;
                }
                return calls;
            });
            assertThat(checked.values()).containsOnly(4);
        }
    }
}
