package io.nexar;

/**
 * Reduction operators. Bitwise operators apply to integer types only; using them with a floating-point
 * {@link DataType} is an {@link IllegalArgumentException} raised before any communication.
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
    /** Sum divided by the number of ranks; integer types divide with truncation toward zero. */
    AVG,
    /** Bitwise and (integer types only). */
    BAND,
    /** Bitwise or (integer types only). */
    BOR,
    /** Bitwise exclusive or (integer types only). */
    BXOR;

    /** True for BAND, BOR and BXOR. */
    public boolean isBitwise() {
        return this == BAND || this == BOR || this == BXOR;
    }
}
