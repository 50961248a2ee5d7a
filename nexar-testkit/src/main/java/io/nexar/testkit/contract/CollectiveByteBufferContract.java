package io.nexar.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.DataType;
import io.nexar.NexarConfig;
import io.nexar.testkit.TestCluster;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@link ByteBuffer} forms of gather, scatter and allToAll and their V forms (issue 18): heap and direct buffers
 * are read and written between position and limit, the receiving buffer's position advances by the bytes received,
 * sending buffers are left as they were, and a buffer that is too small or read-only is refused before anything is
 * sent. Element values encode (sender, receiver, index), so a block in the wrong place fails the test. A transport's
 * test is a one-line subclass.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class CollectiveByteBufferContract {
    private static final int WORLD = 3;
    /** Bytes before the data in every buffer: the forms must start at the position, not at 0. */
    private static final int OFFSET = 3;

    /** For a transport's one-line subclass. */
    protected CollectiveByteBufferContract() {
    }

    /**
     * Starts {@code worldSize} connected ranks with {@code config}.
     *
     * @param worldSize the number of ranks
     * @param config the configuration of every rank
     * @return the running cluster; the test closes it
     */
    protected abstract TestCluster start(int worldSize, NexarConfig config);

    private TestCluster start() {
        return start(WORLD, NexarConfig.builder().ignoreEnvironment().p2pTimeout(Duration.ofSeconds(20))
                .collectiveTimeout(Duration.ofSeconds(20)).build());
    }

    /** The value rank {@code from} sends to rank {@code to} as its element {@code i}. */
    private static int value(int from, int to, int i) {
        return 1_000_000 * (from + 1) + 1_000 * to + i;
    }

    /** A heap or direct little-endian buffer of {@code ints} ints after {@link #OFFSET} bytes, positioned there. */
    private static ByteBuffer buffer(boolean direct, int ints) {
        int bytes = OFFSET + 4 * ints + 5; // room after the limit that must stay untouched
        ByteBuffer b = (direct ? ByteBuffer.allocateDirect(bytes) : ByteBuffer.allocate(bytes))
                .order(ByteOrder.LITTLE_ENDIAN);
        b.limit(bytes - 5).position(OFFSET);
        return b;
    }

    /** Writes {@code values} at the buffer's position without moving it. */
    private static ByteBuffer fill(ByteBuffer b, int[] values) {
        for (int i = 0; i < values.length; i++) {
            b.putInt(b.position() + 4 * i, values[i]);
        }
        return b;
    }

    /** The {@code n} ints from {@link #OFFSET}. */
    private static int[] read(ByteBuffer b, int n) {
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = b.getInt(OFFSET + 4 * i);
        }
        return out;
    }

    @Test
    void shouldGatherAndScatterIntoHeapAndDirectBuffersFromTheirPositions() {
        int count = 4;
        try (var cluster = start()) {
            cluster.run(c -> {
                int r = c.rank();
                for (boolean direct : new boolean[] {false, true}) {
                    int root = direct ? 1 : 0;
                    int[] mine = new int[count];
                    Arrays.setAll(mine, i -> value(r, root, i));
                    ByteBuffer in = fill(buffer(direct, count), mine);
                    ByteBuffer out = r == root ? buffer(!direct, count * WORLD) : null;
                    c.gather(in, out, DataType.I32, count, root);
                    assertThat(in.position()).as("a sending buffer is not changed").isEqualTo(OFFSET);
                    if (r == root) {
                        assertThat(out.position()).isEqualTo(OFFSET + 4 * count * WORLD);
                        int[] expected = new int[count * WORLD];
                        Arrays.setAll(expected, k -> value(k / count, root, k % count));
                        assertThat(read(out, count * WORLD)).isEqualTo(expected);
                        assertThat(out.duplicate().clear().get(out.limit())).as("nothing written after the limit")
                                .isZero();
                    }

                    ByteBuffer all = null;
                    if (r == root) {
                        int[] blocks = new int[count * WORLD];
                        Arrays.setAll(blocks, k -> value(root, k / count, k % count));
                        all = fill(buffer(direct, count * WORLD), blocks);
                    }
                    ByteBuffer block = buffer(!direct, count);
                    c.scatter(all, block, DataType.I32, count, root);
                    assertThat(block.position()).isEqualTo(OFFSET + 4 * count);
                    int[] expected = new int[count];
                    Arrays.setAll(expected, i -> value(root, r, i));
                    assertThat(read(block, count)).isEqualTo(expected);
                    if (all != null) {
                        assertThat(all.position()).isEqualTo(OFFSET);
                    }
                }
                return null;
            });
        }
    }

    @Test
    void shouldGatherVAndScatterVUnequalCounts() {
        long[] counts = {2, 0, 5}; // a rank with nothing to send or receive takes part too
        int total = 7;
        try (var cluster = start()) {
            cluster.run(c -> {
                int r = c.rank();
                int root = 2;
                int n = (int) counts[r];
                int[] mine = new int[n];
                Arrays.setAll(mine, i -> value(r, root, i));
                ByteBuffer out = r == root ? buffer(true, total) : null;
                c.gatherV(fill(buffer(false, n), mine), out, DataType.I32, counts, root);
                if (r == root) {
                    assertThat(out.position()).isEqualTo(OFFSET + 4 * total);
                    assertThat(read(out, total)).containsExactly(value(0, 2, 0), value(0, 2, 1), value(2, 2, 0),
                            value(2, 2, 1), value(2, 2, 2), value(2, 2, 3), value(2, 2, 4));
                }
                ByteBuffer all = r == root ? fill(buffer(false, total), new int[] {value(2, 0, 0), value(2, 0, 1),
                        value(2, 2, 0), value(2, 2, 1), value(2, 2, 2), value(2, 2, 3), value(2, 2, 4)}) : null;
                ByteBuffer mineOut = buffer(true, n);
                c.scatterV(all, mineOut, DataType.I32, counts, root);
                assertThat(mineOut.position()).isEqualTo(OFFSET + 4 * n);
                int[] expected = new int[n];
                Arrays.setAll(expected, i -> value(root, r, i));
                assertThat(read(mineOut, n)).isEqualTo(expected);
                return null;
            });
        }
    }

    @Test
    void shouldAllToAllAndAllToAllVBetweenPositionAndLimit() {
        try (var cluster = start()) {
            cluster.run(c -> {
                int r = c.rank();
                int count = 3;
                int[] blocks = new int[count * WORLD];
                Arrays.setAll(blocks, k -> value(r, k / count, k % count));
                ByteBuffer in = fill(buffer(true, count * WORLD), blocks);
                ByteBuffer out = buffer(false, count * WORLD);
                c.allToAll(in, out, DataType.I32, count);
                assertThat(in.position()).isEqualTo(OFFSET);
                assertThat(out.position()).isEqualTo(OFFSET + 4 * count * WORLD);
                int[] expected = new int[count * WORLD];
                Arrays.setAll(expected, k -> value(k / count, r, k % count));
                assertThat(read(out, count * WORLD)).isEqualTo(expected);

                // rank s sends s + d + 1 elements to rank d
                long[] send = new long[WORLD];
                long[] recv = new long[WORLD];
                for (int p = 0; p < WORLD; p++) {
                    send[p] = r + p + 1;
                    recv[p] = p + r + 1;
                }
                int sent = (int) Arrays.stream(send).sum();
                int received = (int) Arrays.stream(recv).sum();
                int[] packed = new int[sent];
                int[] want = new int[received];
                for (int p = 0, k = 0, j = 0; p < WORLD; p++) {
                    for (int i = 0; i < send[p]; i++) {
                        packed[k++] = value(r, p, i);
                    }
                    for (int i = 0; i < recv[p]; i++) {
                        want[j++] = value(p, r, i);
                    }
                }
                ByteBuffer vin = fill(buffer(false, sent), packed);
                ByteBuffer vout = buffer(true, received);
                c.allToAllV(vin, send, vout, recv, DataType.I32);
                assertThat(vin.position()).isEqualTo(OFFSET);
                assertThat(vout.position()).isEqualTo(OFFSET + 4 * received);
                assertThat(read(vout, received)).isEqualTo(want);
                return null;
            });
        }
    }

    @Test
    void shouldRefuseATooSmallOrReadOnlyReceivingBufferBeforeSending() {
        try (var cluster = start()) {
            cluster.run(c -> {
                ByteBuffer in = buffer(false, 2 * WORLD);
                ByteBuffer small = buffer(false, 2 * WORLD - 1);
                assertThatThrownBy(() -> c.allToAll(in, small, DataType.I32, 2))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("out");
                assertThat(small.position()).as("a refused call moves nothing").isEqualTo(OFFSET);
                assertThatThrownBy(() -> c.scatter(in, buffer(true, 2).asReadOnlyBuffer(), DataType.I32, 2, 0))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("read-only");
                assertThatThrownBy(() -> c.gather((ByteBuffer) null, buffer(false, 2), DataType.I32, 2, 0))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("null");
                // the communicator still works after the refusals: nothing was sent
                ByteBuffer out = buffer(false, WORLD);
                c.allToAll(fill(buffer(false, WORLD), new int[] {c.rank(), c.rank(), c.rank()}), out,
                        DataType.I32, 1);
                assertThat(read(out, WORLD)).containsExactly(0, 1, 2);
                return null;
            });
        }
    }
}
