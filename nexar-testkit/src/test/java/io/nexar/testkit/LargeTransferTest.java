package io.nexar.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.NexarConfig;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Sizes are 64-bit: one message of more than 2 GiB, chunked transparently. */
class LargeTransferTest {
    private static final long BYTES = (2L << 30) + 4096 + 8; // 2 GiB + a bit, a whole number of longs

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldMoveAMessageLargerThanTwoGibibytes() {
        var config = NexarConfig.builder().ignoreEnvironment().chunkBytes(64L << 20).maxFrameBytes(128L << 20)
                .p2pTimeout(Duration.ofSeconds(100)).build();
        try (var cluster = LocalCluster.start(2, config, Duration.ofSeconds(110))) {
            cluster.run(c -> {
                try (var arena = Arena.ofConfined()) {
                    MemorySegment seg = arena.allocate(BYTES, 8);
                    long longs = BYTES / 8;
                    if (c.rank() == 0) {
                        for (long i = 0; i < longs; i++) {
                            seg.setAtIndex(ValueLayout.JAVA_LONG, i, i * 0x9E3779B97F4A7C15L);
                        }
                        c.send(1, 0, seg);
                    } else {
                        assertThat(c.recv(0, 0, seg)).isEqualTo(BYTES);
                        for (long i = 0; i < longs; i++) {
                            long v = seg.getAtIndex(ValueLayout.JAVA_LONG, i);
                            if (v != i * 0x9E3779B97F4A7C15L) {
                                throw new AssertionError("long " + i + " differs: " + v);
                            }
                        }
                    }
                }
                return null;
            });
        }
    }
}
