package io.nexar.testkit;

import io.nexar.DataType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Reads and writes little-endian elements of any {@link DataType} (F16 and BF16 through float). */
final class Elements {
    private static final ValueLayout.OfShort S = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Elements() {
    }

    static void setDouble(MemorySegment s, long i, DataType type, double v) {
        long off = i * type.byteSize();
        switch (type) {
            case F32 -> s.set(I, off, Float.floatToRawIntBits((float) v));
            case F64 -> s.set(L, off, Double.doubleToRawLongBits(v));
            case F16 -> s.set(S, off, Float.floatToFloat16((float) v));
            case BF16 -> s.set(S, off, (short) (Float.floatToRawIntBits((float) v) >>> 16));
            default -> throw new IllegalArgumentException(type.toString());
        }
    }

    static void setLong(MemorySegment s, long i, DataType type, long v) {
        long off = i * type.byteSize();
        switch (type.byteSize()) {
            case 1 -> s.set(ValueLayout.JAVA_BYTE, off, (byte) v);
            case 4 -> s.set(I, off, (int) v);
            case 8 -> s.set(L, off, v);
            default -> throw new IllegalArgumentException(type.toString());
        }
    }
}
