package io.nexar.internal.protocol;

import static io.nexar.internal.protocol.WireFormat.INT_LE;

import java.lang.foreign.MemorySegment;

/**
 * The payload of a compressed allReduce: one rank's {@code k} selected elements, as its block of the allgather that
 * carries them (docs/protocol.md, "Compressed allReduce payload"). Little-endian, unaligned:
 *
 * <pre>
 * offset          field
 * 0               k u32                  number of elements that follow
 * 4               index u32 x k          element indices, strictly ascending, each below the call's count
 * 4 + 4k          value x k              the elements, in the call's type (2, 4 or 8 bytes each), same order
 * 4 + k(4 + w)    end                    (w = element size; the payload is exactly this long)
 * </pre>
 *
 * <p>The element count, type and {@code k} are not on the wire: the receiver knows them from its own call, and the
 * fingerprint of every message (count, type, operator, layout code with {@code k}) has already been checked against
 * its own. {@link #problem} checks every field before anything is read for use, so a malformed payload is reported,
 * never written out of range or into the wrong elements.
 */
public final class SparsePayload {
    /** Offset of {@code k}. */
    public static final int K_OFFSET = 0;
    /** Offset of the first index. */
    public static final int INDICES_OFFSET = 4;
    /** Bytes per index. */
    public static final int INDEX_BYTES = 4;
    /** Largest element count a payload can index (indices are u32). */
    public static final long MAX_COUNT = 1L << 32;

    private SparsePayload() {
    }

    /** Size of a payload of {@code k} elements of {@code elementBytes} each. */
    public static long bytes(long k, int elementBytes) {
        return INDICES_OFFSET + k * (INDEX_BYTES + (long) elementBytes);
    }

    /** Offset of value {@code j} of a payload of {@code k} elements of {@code elementBytes} each. */
    public static long valueOffset(long k, long j, int elementBytes) {
        return INDICES_OFFSET + k * INDEX_BYTES + j * elementBytes;
    }

    /** Writes {@code k}. */
    public static void writeK(MemorySegment payload, long k) {
        payload.set(INT_LE, K_OFFSET, (int) k);
    }

    /** Writes index {@code j}. */
    public static void writeIndex(MemorySegment payload, long j, long index) {
        payload.set(INT_LE, INDICES_OFFSET + j * INDEX_BYTES, (int) index);
    }

    /** Index {@code j} (unsigned). */
    public static long index(MemorySegment payload, long j) {
        return Integer.toUnsignedLong(payload.get(INT_LE, INDICES_OFFSET + j * INDEX_BYTES));
    }

    /**
     * Checks a received payload against the receiver's own call: its size is at least the header, the {@code k} it
     * states is {@code expectedK}, its size is exactly {@link #bytes}{@code (k, elementBytes)}, and every index is
     * below {@code count} and above the one before (so none repeats).
     *
     * @return null if the payload is well formed, else what is wrong, in words
     */
    public static String problem(MemorySegment payload, long count, long expectedK, int elementBytes) {
        long size = payload.byteSize();
        if (size < INDICES_OFFSET) {
            return "the payload has " + size + " bytes, fewer than its " + INDICES_OFFSET + "-byte header";
        }
        long k = Integer.toUnsignedLong(payload.get(INT_LE, K_OFFSET));
        if (k != expectedK) {
            return "the payload states k " + k + " where this call sends " + expectedK;
        }
        if (size != bytes(k, elementBytes)) {
            return "the payload has " + size + " bytes but k " + k + " elements of " + elementBytes + " bytes need "
                    + bytes(k, elementBytes);
        }
        long previous = -1;
        for (long j = 0; j < k; j++) {
            long i = index(payload, j);
            if (i >= count) {
                return "index " + j + " is " + i + ", outside [0, " + count + ")";
            }
            if (i <= previous) {
                return "index " + j + " is " + i + ", not above the index before it (" + previous + ")";
            }
            previous = i;
        }
        return null;
    }
}
