package io.nexar.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.Communicator;
import io.nexar.NexarConfig;
import io.nexar.Status;
import io.nexar.testkit.TestCluster;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The base of the point-to-point contract: how a transport starts its cluster, and the cases about buffers (byte
 * buffers between position and limit, array slices of every type, buffer and wildcard mistakes).
 * {@link MpiPointToPointCases} and {@link PointToPointContract} extend it, so every transport runs these cases.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class PointToPointBufferCases {

    /** For {@link MpiPointToPointCases}. */
    protected PointToPointBufferCases() {
    }

    /**
     * Starts {@code worldSize} connected ranks with {@code config}.
     *
     * @param worldSize the number of ranks
     * @param config the configuration of every rank
     * @return the running cluster; the test closes it
     */
    protected abstract TestCluster start(int worldSize, NexarConfig config);

    /**
     * A configuration for fast tests: no environment, short timeouts.
     *
     * @return a builder the tests add to or build as it is
     */
    protected NexarConfig.Builder config() {
        return NexarConfig.builder().ignoreEnvironment().p2pTimeout(Duration.ofSeconds(20));
    }

    TestCluster start(int worldSize) {
        return start(worldSize, config().build());
    }

    @Test
    void shouldSendAndReceiveHeapAndDirectByteBuffersBetweenPositionAndLimit() {
        try (var cluster = start(2)) {
            cluster.run(c -> {
                if (c.rank() == 0) {
                    for (ByteBuffer b : List.of(ByteBuffer.wrap(pattern(20, 5)),
                            ByteBuffer.allocateDirect(20).put(pattern(20, 5)).clear())) {
                        b.position(3).limit(10);
                        c.send(1, 1, b);
                        assertThat(b.position()).as("a send leaves the buffer as it was").isEqualTo(3);
                        c.isend(1, 2, b).await();
                    }
                    var reply = ByteBuffer.allocateDirect(8);
                    Status st = c.sendRecv(1, 3, ByteBuffer.wrap(new byte[] {9, 8, 7}), 1, 4, reply);
                    assertThat(st).isEqualTo(new Status(1, 4, 2));
                    assertThat(reply.position()).isEqualTo(2);
                    assertThat(reply.flip().get(1)).isEqualTo((byte) 6);
                } else {
                    byte[] expected = Arrays.copyOfRange(pattern(20, 5), 3, 10);
                    for (ByteBuffer b : List.of(ByteBuffer.allocate(32), ByteBuffer.allocateDirect(32))) {
                        b.position(5);
                        assertThat(c.recv(0, 1, b)).isEqualTo(7);
                        assertThat(b.position()).isEqualTo(12);
                        var h = c.irecv(0, 2, b);
                        assertThat(h.await()).isEqualTo(new Status(0, 2, 7));
                        assertThat(b.position()).isEqualTo(19);
                        var bytes = new byte[14];
                        b.flip().position(5).get(bytes);
                        assertThat(Arrays.copyOf(bytes, 7)).isEqualTo(expected);
                        assertThat(Arrays.copyOfRange(bytes, 7, 14)).isEqualTo(expected);
                    }
                    var in = ByteBuffer.allocate(3);
                    Status st = c.sendRecv(0, 4, ByteBuffer.wrap(new byte[] {5, 6}), 0, 3, in);
                    assertThat(st).isEqualTo(new Status(0, 3, 3));
                    assertThat(in.array()).containsExactly(9, 8, 7);
                    assertThatThrownBy(() -> c.recv(0, 1, ByteBuffer.allocate(4).asReadOnlyBuffer()))
                            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("read-only");
                }
                return null;
            });
        }
    }

    @Test
    void shouldSendAndReceiveArraySlicesOfEveryType() {
        try (var cluster = start(2)) {
            cluster.run(c -> {
                if (c.rank() == 0) {
                    c.send(1, 1, new float[] {0f, 1f, 1.5f, -2f, 9f}, 1, 3);
                    c.send(1, 2, new double[] {0, Math.PI, 0}, 1, 1);
                    c.send(1, 3, new int[] {5, 6, 7}, 0, 2);
                    c.send(1, 4, new long[] {1, 2, Long.MIN_VALUE}, 2, 1);
                    c.send(1, 5, new byte[] {1, 2, 3, 4}, 1, 0);
                    c.isend(1, 6, new int[] {0, 0, 11, 12}, 2, 2).await();
                    c.isend(1, 7, new byte[] {1, 2, 3}, 0, 3).await();
                } else {
                    var f = new float[] {-1, -1, -1, -1, -1, -1};
                    assertThat(c.recv(0, 1, f, 2, 4)).isEqualTo(3);
                    assertThat(f).containsExactly(-1f, -1f, 1f, 1.5f, -2f, -1f);
                    var d = new double[3];
                    assertThat(c.recv(0, 2, d, 2, 1)).isEqualTo(1);
                    assertThat(d).containsExactly(0, 0, Math.PI);
                    var i = new int[4];
                    assertThat(c.recv(0, 3, i, 1, 3)).isEqualTo(2);
                    assertThat(i).containsExactly(0, 5, 6, 0);
                    var l = new long[2];
                    assertThat(c.recv(0, 4, l, 1, 1)).isEqualTo(1);
                    assertThat(l).containsExactly(0, Long.MIN_VALUE);
                    assertThat(c.recv(0, 5, new byte[2], 2, 0)).isZero();
                    var i2 = new int[5];
                    assertThat(c.irecv(0, 6, i2, 3, 2).await()).isEqualTo(new Status(0, 6, 8));
                    assertThat(i2).containsExactly(0, 0, 0, 11, 12);
                    var b = new byte[4];
                    assertThatThrownBy(() -> c.irecv(0, 7, new int[4], 0, 4).await())
                            .as("3 bytes are not a whole number of ints").isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("3 bytes");
                    assertThatThrownBy(() -> c.recv(0, 8, b, 3, 2)).isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("offset 3 and length 2");
                    assertThatThrownBy(() -> c.send(0, 8, new long[2], -1, 1))
                            .isInstanceOf(IllegalArgumentException.class);
                }
                return null;
            });
        }
    }

    @Test
    void shouldRejectWildcardAndBufferMistakesBeforeSending() {
        try (var cluster = start(2)) {
            cluster.run(c -> {
                var buf = MemorySegment.ofArray(new byte[4]);
                assertThatThrownBy(() -> c.send(Communicator.ANY_SOURCE, 0, buf))
                        .isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> c.isend(0, Communicator.ANY_TAG, buf))
                        .isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> c.recvStatus(-3, 0, buf)).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> c.irecv(0, -2, buf)).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> c.iprobe(2, 0)).isInstanceOf(IllegalArgumentException.class);
                try (Arena arena = Arena.ofConfined()) {
                    assertThatThrownBy(() -> c.irecv(0, 0, arena.allocate(4)))
                            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("confined");
                    assertThatThrownBy(() -> c.isend(0, 0, arena.allocate(4)))
                            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("confined");
                }
                return null;
            });
        }
    }

    /**
     * Bytes that tell messages apart.
     *
     * @param size the number of bytes
     * @param id the message's id, which changes the bytes
     * @return {@code size} bytes depending on {@code id}
     */
    protected static byte[] pattern(int size, int id) {
        var b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (i * 31 + id * 7 + (i >>> 8));
        }
        return b;
    }
}
