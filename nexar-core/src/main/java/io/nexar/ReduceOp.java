package io.nexar;

/**
 * Reduction operators. Bitwise operators apply to integer types only; using them with a floating-point
 * {@link DataType} is an {@link IllegalArgumentException} raised before any communication. Unsigned types (U8, U32,
 * U64) compare and divide as unsigned. A NaN result of F16 or BF16 is always the canonical quiet NaN (0x7E00,
 * 0x7FC0); for F32 and F64 it is a NaN whose payload Java leaves unspecified.
 */
public enum ReduceOp {
    /** Sum; integers wrap around on overflow as in Java arithmetic. */
    SUM,
    /** Product; integers wrap around on overflow. */
    PROD,
    /** Minimum; for floating point, NaN wins (a NaN anywhere gives NaN), and -0.0 is less than +0.0. */
    MIN,
    /** Maximum; for floating point, NaN wins, and +0.0 is greater than -0.0. */
    MAX,
    /**
     * Sum divided by the number of ranks, once, after the whole sum (which wraps for integer types, as {@link #SUM}
     * does); signed integer types truncate toward zero, unsigned ones divide unsigned, and floating-point quotients
     * are rounded to nearest-even.
     */
    AVG,
    /** Bitwise and (integer types only). */
    BAND,
    /** Bitwise or (integer types only). */
    BOR,
    /** Bitwise exclusive or (integer types only). */
    BXOR;

    /** {@return true for BAND, BOR and BXOR} */
    public boolean isBitwise() {
        return this == BAND || this == BOR || this == BXOR;
    }
}
