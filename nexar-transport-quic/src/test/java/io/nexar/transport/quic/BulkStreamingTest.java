package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.DataType;
import io.nexar.NexarConfig;
import io.nexar.ReduceOp;
import io.nexar.internal.transport.Lane;
import io.nexar.transport.quic.bulk.BulkConnection;
import io.nexar.transport.quic.bulk.BulkLaneOptions;
import io.nexar.transport.quic.bulk.BulkProbes;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.time.Duration;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Large collective chunks on the bulk lane are read straight into their destination ({@code PayloadStream}): decrypted
 * into native or byte-array memory, or through the reader's small buffer into other heap memory and into reductions.
 * Results are exact, and the lane's reader reports the chunks it streamed.
 */
@Timeout(60)
class BulkStreamingTest {
    private static final int RANKS = 3;
    /** Elements per rank: every ring step moves a third of it, well above {@link BulkProbes#STREAM_MIN_BYTES}. */
    private static final int COUNT = 3 * 100_003;
    private static final NexarConfig CONFIG = NexarConfig.builder().ignoreEnvironment()
            .collectiveTimeout(Duration.ofSeconds(30)).build();

    private static float value(int rank, int i) {
        return (rank + 1) * 0.5f + (i % 1000);
    }

    /**
     * Over TLS a record ends where a frame ends; over plain TCP one read brings the next frame's bytes along with the
     * end of a payload, which must stay for the next frame (a read of the payload counts only its own bytes).
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = BulkLaneOptions.Mode.class, names = {"TLS", "TCP_PLAIN"})
    void largeChunksAreStreamedIntoNativeAndHeapDestinationsExactly(BulkLaneOptions.Mode mode) {
        try (var cluster = QuicTestCluster.start(RANKS, CONFIG, InetAddress.getLoopbackAddress(),
                new BulkLaneOptions(mode, BulkLaneOptions.DEFAULT_THRESHOLD_BYTES))) {
            cluster.run(c -> {
                int r = c.rank();
                try (Arena arena = Arena.ofConfined()) {
                    // allreduce, native in and out: reducing receives (out = in + received) from the reader's buffer
                    MemorySegment in = arena.allocate(4L * COUNT);
                    MemorySegment out = arena.allocate(4L * COUNT);
                    for (int i = 0; i < COUNT; i++) {
                        in.setAtIndex(ValueLayout.JAVA_FLOAT, i, value(r, i));
                    }
                    c.allReduce(in, out, DataType.F32, COUNT, ReduceOp.SUM);
                    for (int i = 0; i < COUNT; i += 997) {
                        float want = value(0, i) + value(1, i) + value(2, i);
                        assertThat(out.getAtIndex(ValueLayout.JAVA_FLOAT, i)).as("allreduce element %d", i)
                                .isEqualTo(want);
                    }
                    // allgather into native memory: plain receives decrypted straight into the output
                    MemorySegment all = arena.allocate(4L * COUNT * RANKS);
                    c.allGather(in, all, DataType.F32, COUNT);
                    // and into a float[] (a byte buffer cannot view it): through the reader's buffer
                    float[] heap = new float[COUNT * RANKS];
                    c.allGather(in, MemorySegment.ofArray(heap), DataType.F32, COUNT);
                    for (int j = 0; j < RANKS; j++) {
                        for (int i = 0; i < COUNT; i += 991) {
                            assertThat(all.getAtIndex(ValueLayout.JAVA_FLOAT, (long) j * COUNT + i))
                                    .as("allgather block %d element %d", j, i).isEqualTo(value(j, i));
                            assertThat(heap[j * COUNT + i]).isEqualTo(value(j, i));
                        }
                    }
                }
                return null;
            });
            long streamed = 0;
            for (int r = 0; r < RANKS; r++) {
                for (int p = 0; p < RANKS; p++) {
                    BulkConnection lane = p == r ? null : cluster.transport(r).link(p).bulk(Lane.COLLECTIVE);
                    streamed += lane == null ? 0 : BulkProbes.deliveries(lane)[2];
                }
            }
            assertThat(streamed).as("chunks read straight into their destination").isPositive();
        }
    }
}
