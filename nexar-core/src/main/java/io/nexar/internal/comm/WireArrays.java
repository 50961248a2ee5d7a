package io.nexar.internal.comm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.function.ToLongFunction;

/**
 * Java arrays on the wire and in collectives, which carry little-endian elements: on a little-endian machine (every
 * machine nexar runs on today) the array's own memory is sent, received into and reduced in; otherwise a byte-swapped
 * copy. The one place that handles byte order for point-to-point and collective array forms alike.
 */
public final class WireArrays {
    /** True on the machines nexar runs on today: array memory is already in wire order. */
    public static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private WireArrays() {
    }

    /** The array's bytes in wire order: the array itself on little-endian machines, a swapped copy otherwise. */
    public static MemorySegment wire(MemorySegment heap, ValueLayout element) {
        if (LITTLE_ENDIAN) {
            return heap;
        }
        MemorySegment out = MemorySegment.ofArray(new byte[Math.toIntExact(heap.byteSize())]);
        MemorySegment.copy(heap, element, 0, out, littleEndian(element), 0, heap.byteSize() / element.byteSize());
        return out;
    }

    /**
     * Receives into the array {@code heap} with {@code receive} (which returns the bytes received). A message that is
     * not a whole number of elements is a caller mismatch (for example bytes sent, floats received).
     *
     * @param where names the receive for that error, for example {@code recv on rank 1 (comm 0, tag 3): rank 2}
     * @return the number of elements received
     */
    public static int receive(ToLongFunction<MemorySegment> receive, MemorySegment heap, ValueLayout element,
                       java.util.function.Supplier<String> where) {
        long elementBytes = element.byteSize();
        MemorySegment target = LITTLE_ENDIAN ? heap : MemorySegment.ofArray(new byte[Math.toIntExact(heap.byteSize())]);
        long n = receive.applyAsLong(target);
        if (n % elementBytes != 0) {
            throw new IllegalArgumentException(where.get() + " sent " + n + " bytes, not a whole number of "
                    + elementBytes + "-byte elements");
        }
        if (!LITTLE_ENDIAN) {
            MemorySegment.copy(target, littleEndian(element), 0, heap, element, 0, n / elementBytes);
        }
        return (int) (n / elementBytes);
    }

    /** Copies {@code count} little-endian elements from {@code wire} into {@code heap}, in native order. */
    public static void fromWire(MemorySegment wire, MemorySegment heap, ValueLayout element, long count) {
        MemorySegment.copy(wire, littleEndian(element), 0, heap, element, 0, count);
    }

    private static ValueLayout littleEndian(ValueLayout element) {
        return switch (element) {
            case ValueLayout.OfByte b -> ValueLayout.JAVA_BYTE;
            case ValueLayout.OfFloat f -> ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
            case ValueLayout.OfDouble d -> ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
            case ValueLayout.OfInt i -> ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
            case ValueLayout.OfLong l -> ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
            default -> throw new IllegalArgumentException("no little-endian form for " + element);
        };
    }
}
