/**
 * Reduction kernels: {@link io.nexar.internal.reduce.Reducer} applies a {@link io.nexar.ReduceOp} element-wise to
 * little-endian {@link io.nexar.DataType} elements in memory segments, and {@link io.nexar.internal.reduce.HalfFloats}
 * converts between {@code float} and F16/BF16. A leaf package: it depends only on {@code io.nexar.DataType},
 * {@code io.nexar.ReduceOp} and the JDK.
 */
package io.nexar.internal.reduce;
