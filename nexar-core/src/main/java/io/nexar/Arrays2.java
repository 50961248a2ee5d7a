package io.nexar;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/** Heap views of primitive arrays for the array overloads of {@link Communicator}'s collectives. */
final class Arrays2 {
    private Arrays2() {
    }

    private static void checkOrder() {
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new UnsupportedOperationException("array overloads of collectives need a little-endian platform;"
                    + " use the MemorySegment forms with little-endian elements");
        }
    }

    static MemorySegment of(float[] a) {
        checkOrder();
        if (a == null) {
            throw new IllegalArgumentException("data must not be null");
        }
        return MemorySegment.ofArray(a);
    }

    static MemorySegment of(double[] a) {
        checkOrder();
        if (a == null) {
            throw new IllegalArgumentException("data must not be null");
        }
        return MemorySegment.ofArray(a);
    }

    static MemorySegment of(int[] a) {
        checkOrder();
        if (a == null) {
            throw new IllegalArgumentException("data must not be null");
        }
        return MemorySegment.ofArray(a);
    }

    static MemorySegment of(long[] a) {
        checkOrder();
        if (a == null) {
            throw new IllegalArgumentException("data must not be null");
        }
        return MemorySegment.ofArray(a);
    }
}
