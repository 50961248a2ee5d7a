package io.nexar;

/**
 * Element types of collective buffers. On the wire and in {@link java.lang.foreign.MemorySegment}s elements are
 * little-endian. F16 and BF16 are reduced with F32 accumulation and rounded back to nearest-even.
 */
public enum DataType {
    /** IEEE 754 binary16. */
    F16(2, true),
    /** bfloat16: the upper half of an F32. */
    BF16(2, true),
    /** IEEE 754 binary32 ({@code float}). */
    F32(4, true),
    /** IEEE 754 binary64 ({@code double}). */
    F64(8, true),
    /** Signed 8-bit integer ({@code byte}). */
    I8(1, false),
    /** Unsigned 8-bit integer. */
    U8(1, false),
    /** Signed 32-bit integer ({@code int}). */
    I32(4, false),
    /** Unsigned 32-bit integer. */
    U32(4, false),
    /** Signed 64-bit integer ({@code long}). */
    I64(8, false),
    /** Unsigned 64-bit integer. */
    U64(8, false);

    private final int byteSize;
    private final boolean floatingPoint;

    DataType(int byteSize, boolean floatingPoint) {
        this.byteSize = byteSize;
        this.floatingPoint = floatingPoint;
    }

    /** {@return the size of one element in bytes} */
    public int byteSize() {
        return byteSize;
    }

    /** {@return true for F16, BF16, F32 and F64} */
    public boolean isFloatingPoint() {
        return floatingPoint;
    }
}
