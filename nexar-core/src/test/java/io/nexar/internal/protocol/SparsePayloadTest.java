package io.nexar.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The compressed allReduce payload: its golden bytes, and every way a payload can be malformed. */
@Timeout(10)
class SparsePayloadTest {
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long SEED = Long.getLong("nexar.test.seed", 0x5EED_5BA5L);

    /** k 2 of F32: indices 3 and 9, values 1.5 and -2. */
    private static MemorySegment sample() {
        var p = MemorySegment.ofArray(new byte[(int) SparsePayload.bytes(2, 4)]);
        SparsePayload.writeK(p, 2);
        SparsePayload.writeIndex(p, 0, 3);
        SparsePayload.writeIndex(p, 1, 9);
        p.set(F32, SparsePayload.valueOffset(2, 0, 4), 1.5f);
        p.set(F32, SparsePayload.valueOffset(2, 1, 4), -2f);
        return p;
    }

    @Test
    void goldenBytes() {
        assertThat(HexFormat.of().formatHex(sample().toArray(ValueLayout.JAVA_BYTE)))
                .isEqualTo("02000000" + "03000000" + "09000000" + "0000c03f" + "000000c0");
        assertThat(SparsePayload.problem(sample(), 10, 2, 4)).isNull();
        assertThat(SparsePayload.bytes(0, 8)).isEqualTo(4);
    }

    @Test
    void everyMalformedPayloadIsNamed() {
        assertThat(SparsePayload.problem(MemorySegment.ofArray(new byte[3]), 10, 0, 4)).contains("fewer than");
        assertThat(SparsePayload.problem(sample(), 10, 3, 4)).contains("states k 2 where this call sends 3");
        assertThat(SparsePayload.problem(sample().asSlice(0, 19), 10, 2, 4)).contains("has 19 bytes");
        var longer = MemorySegment.ofArray(new byte[21]);
        longer.copyFrom(sample());
        assertThat(SparsePayload.problem(longer, 10, 2, 4)).contains("has 21 bytes");
        assertThat(SparsePayload.problem(sample(), 9, 2, 4)).contains("index 1 is 9, outside [0, 9)");
        var p = sample();
        SparsePayload.writeIndex(p, 1, 3);
        assertThat(SparsePayload.problem(p, 10, 2, 4)).contains("index 1 is 3, not above");
        SparsePayload.writeIndex(p, 0, -1); // 2^32 - 1 as u32
        assertThat(SparsePayload.problem(p, 10, 2, 4)).contains("index 0 is 4294967295, outside");
        var huge = sample();
        SparsePayload.writeK(huge, -1);
        assertThat(SparsePayload.problem(huge, 10, 2, 4)).contains("states k 4294967295");
    }

    /** Random corruptions of valid payloads are either still valid or reported; never an exception. */
    @Test
    void randomCorruptionIsReportedNeverThrown() {
        System.out.println("SparsePayloadTest seed=" + SEED);
        var random = new Random(SEED);
        for (int trial = 0; trial < 20_000; trial++) {
            int count = 1 + random.nextInt(50);
            int k = 1 + random.nextInt(count);
            int w = new int[] {2, 4, 8}[random.nextInt(3)];
            var p = MemorySegment.ofArray(new byte[(int) SparsePayload.bytes(k, w)]);
            SparsePayload.writeK(p, k);
            int index = 0;
            for (int j = 0; j < k; j++) {
                SparsePayload.writeIndex(p, j, index++);
            }
            p.set(ValueLayout.JAVA_BYTE, random.nextInt((int) p.byteSize()), (byte) random.nextInt());
            long size = random.nextInt(4) == 0 ? random.nextInt((int) p.byteSize() + 1) : p.byteSize();
            String problem = SparsePayload.problem(p.asSlice(0, size), count, k, w);
            if (problem == null) {
                long previous = -1;
                for (int j = 0; j < k; j++) {
                    long i = SparsePayload.index(p, j);
                    assertThat(i).as("trial %d seed %d", trial, SEED).isBetween(previous + 1, count - 1L);
                    previous = i;
                }
            }
        }
    }
}
