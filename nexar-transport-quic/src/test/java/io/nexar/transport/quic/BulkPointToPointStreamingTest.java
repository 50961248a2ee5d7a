package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.NexarConfig;
import io.nexar.internal.transport.Lane;
import io.nexar.transport.quic.bulk.BulkConnection;
import io.nexar.transport.quic.bulk.BulkLaneOptions;
import io.nexar.transport.quic.bulk.BulkProbes;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Large point-to-point chunks on the bulk lane are read straight into the receive that a posted receive offers
 * ({@code PayloadStream}, {@code Mailbox.claim}): decrypted into native memory or a byte[], or through the reader's
 * small buffer into a long[]; a message that arrives before its receive is stored and copied as before. Every byte is
 * checked against a seeded pattern, and the receiver's lane must report the chunks it streamed.
 */
@Timeout(60)
class BulkPointToPointStreamingTest {
    /** A chunk of the default 4 MiB and a 2 MiB one. */
    private static final int SIX_MIB = 6 << 20;
    /** A 4 MiB chunk and one of 100,001 bytes: an odd size, not a multiple of 8. */
    private static final int ODD = (4 << 20) + 100_001;
    /** A 4 MiB chunk and one of exactly {@link BulkProbes#STREAM_MIN_BYTES}. */
    private static final int AT_THRESHOLD = (4 << 20) + BulkProbes.STREAM_MIN_BYTES;
    private static final NexarConfig CONFIG = NexarConfig.builder().ignoreEnvironment()
            .p2pTimeout(Duration.ofSeconds(30)).build();

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = BulkLaneOptions.Mode.class, names = {"TLS", "TCP_PLAIN"})
    void largeMessagesGoStraightIntoPostedReceivesAndStoredOnesStayExact(BulkLaneOptions.Mode mode) {
        long seed = Long.getLong("nexar.test.seed", System.nanoTime());
        System.out.println("largeMessagesGoStraightIntoPostedReceivesAndStoredOnesStayExact " + mode + " seed=" + seed);
        byte[] a = pattern(seed, SIX_MIB);
        byte[] b = pattern(seed + 1, AT_THRESHOLD);
        byte[] c = pattern(seed + 2, ODD);
        byte[] d = pattern(seed + 3, 4 << 20);
        try (var cluster = QuicTestCluster.start(2, CONFIG, InetAddress.getLoopbackAddress(),
                new BulkLaneOptions(mode, BulkLaneOptions.DEFAULT_THRESHOLD_BYTES))) {
            BulkConnection lane = cluster.transport(1).link(0).bulk(Lane.P2P);
            long before = BulkProbes.deliveries(lane)[2];
            cluster.run(comm -> {
                byte[] go = new byte[1];
                if (comm.rank() == 0) {
                    comm.recv(1, 9, go); // each large message goes once its receive is posted
                    comm.send(1, 1, a);
                    comm.recv(1, 9, go);
                    comm.send(1, 2, b);
                    comm.recv(1, 9, go);
                    comm.send(1, 3, c);
                    comm.send(1, 4, d); // no receive posted yet: stored
                    return null;
                }
                try (Arena arena = Arena.ofShared()) {
                    MemorySegment nat = arena.allocate(SIX_MIB);
                    var h = comm.irecv(0, 1, nat); // native memory: decrypted straight into it
                    comm.send(0, 9, go);
                    assertThat(h.await().byteSize()).isEqualTo(SIX_MIB);
                    assertThat(nat.toArray(ValueLayout.JAVA_BYTE)).as("native, seed %d", seed).isEqualTo(a);

                    long[] longs = new long[b.length / 8]; // a byte buffer cannot view it: through the small buffer
                    h = comm.irecv(0, 2, MemorySegment.ofArray(longs));
                    comm.send(0, 9, go);
                    assertThat(h.await().byteSize()).isEqualTo(b.length);
                    assertThat(MemorySegment.ofArray(longs).toArray(ValueLayout.JAVA_BYTE)).as("long[], seed %d", seed)
                            .isEqualTo(b);

                    byte[] bytes = new byte[ODD + 100]; // larger than the message, which ends at an odd size
                    h = comm.irecv(0, 3, MemorySegment.ofArray(bytes));
                    comm.send(0, 9, go);
                    assertThat(h.await().byteSize()).isEqualTo(ODD);
                    assertThat(MemorySegment.ofArray(bytes).asSlice(0, ODD).toArray(ValueLayout.JAVA_BYTE))
                            .as("byte[], seed %d", seed).isEqualTo(c);
                    assertThat(MemorySegment.ofArray(bytes).asSlice(ODD).toArray(ValueLayout.JAVA_BYTE))
                            .as("bytes after the message").containsOnly((byte) 0);

                    assertThat(comm.probe(0, 4).byteSize()).isEqualTo(d.length); // arrived before its receive
                    byte[] late = new byte[d.length];
                    assertThat(comm.recv(0, 4, late)).isEqualTo(d.length);
                    assertThat(late).as("stored, then received; seed %d", seed).isEqualTo(d);
                }
                return null;
            });
            long streamed = BulkProbes.deliveries(lane)[2] - before;
            // a, b and c: two chunks each, all of at least STREAM_MIN_BYTES, their receive posted before they were sent
            assertThat(streamed).as("point-to-point chunks read straight into their receive").isGreaterThanOrEqualTo(6);
        }
    }

    private static byte[] pattern(long seed, int size) {
        byte[] p = new byte[size];
        new Random(seed).nextBytes(p);
        return p;
    }
}
