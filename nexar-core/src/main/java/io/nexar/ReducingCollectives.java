package io.nexar;

import java.lang.foreign.MemorySegment;

/**
 * The blocking collectives of a {@link Communicator} that reduce: allReduce (in place, out of place, bucketed,
 * compressed), reduce, reduceScatter, scan and exclusiveScan. {@link DataMovementCollectives} has the others and
 * {@link AsyncCollectives} the asynchronous forms; programs use {@link Communicator}, which extends them all.
 *
 * <p>Collectives (docs/collectives.md): every rank of the communicator must call the same collectives in the same
 * order with matching arguments; a rank that differs fails every rank involved with a
 * {@link CollectiveMismatchException} instead of hanging. Buffers are {@link MemorySegment}s of little-endian
 * elements of a {@link DataType} with 64-bit counts; a count that does not fit the buffer, a root outside
 * [0, worldSize) or a bitwise operator on a floating-point type raises {@link IllegalArgumentException} before
 * anything is sent. Each operation has one deadline (setting {@code collective.timeout}). The blocking forms return
 * when this rank's part is done.
 */
public interface ReducingCollectives extends RankGroup {
    /**
     * In place: every rank's {@code data} becomes the element-wise reduction of all ranks' {@code data}. Every rank
     * gets bit-identical results.
     *
     * @param data this rank's input, replaced by the result
     * @param type the type of the elements
     * @param count the number of elements
     * @param op the reduction operator; it must apply to the type
     * @throws IllegalArgumentException if count is negative, data holds fewer than count elements, or op does not
     *         apply to type
     */
    default void allReduce(MemorySegment data, DataType type, long count, ReduceOp op) {
        allReduce(data, data, type, count, op);
    }

    /**
     * Out of place: {@code out} receives the reduction of every rank's {@code in} ({@code in} is not written).
     *
     * @param in this rank's input, not written
     * @param out receives the result ({@code count} elements); may be {@code in}
     * @param type the type of the elements
     * @param count the number of elements
     * @param op the reduction operator; it must apply to the type
     */
    void allReduce(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op);

    /**
     * In-place allReduce of floats.
     *
     * @param data this rank's floats, replaced by the reduction of every rank's
     * @param op the reduction operator; it must apply to the type
     */
    default void allReduce(float[] data, ReduceOp op) {
        Arrays2.allReduce(this, data, op);
    }

    /**
     * In-place allReduce of doubles.
     *
     * @param data this rank's doubles, replaced by the reduction of every rank's
     * @param op the reduction operator; it must apply to the type
     */
    default void allReduce(double[] data, ReduceOp op) {
        Arrays2.allReduce(this, data, op);
    }

    /**
     * In-place allReduce of 32-bit integers.
     *
     * @param data this rank's integers, replaced by the reduction of every rank's
     * @param op the reduction operator; it must apply to the type
     */
    default void allReduce(int[] data, ReduceOp op) {
        Arrays2.allReduce(this, data, op);
    }

    /**
     * In-place allReduce of 64-bit integers.
     *
     * @param data this rank's integers, replaced by the reduction of every rank's
     * @param op the reduction operator; it must apply to the type
     */
    default void allReduce(long[] data, ReduceOp op) {
        Arrays2.allReduce(this, data, op);
    }

    /**
     * Bucketed allReduce: every buffer of {@code buckets} is reduced in place, all of them as one collective (one
     * sequence number, one fingerprint, one schedule over their concatenation), the way a data-parallel trainer
     * reduces its gradient buckets: one operation's latency instead of one per bucket. Each bucket's size is its whole
     * {@code byteSize()}, a multiple of the type's size; buckets may differ in size, but every rank must pass the same
     * sizes in the same order: a rank whose layout differs fails the call on every rank with a
     * {@link CollectiveMismatchException} naming {@link CollectiveMismatchException.Field#LAYOUT}. One bucket is the
     * same call as {@code allReduce(bucket, type, count, op)}.
     *
     * <p>First version: the buckets are copied into one staging buffer (kept between calls), reduced there and copied
     * back, so a call costs two local copies of the total size (docs/collectives.md, "Bucketed allReduce").
     *
     * @param buckets the buffers reduced in place, each a whole number of elements
     * @param type the type of the elements
     * @param op the reduction operator; it must apply to the type
     * @throws IllegalArgumentException if a bucket is null, read-only or not a whole number of elements, or op does
     *         not apply to type
     */
    void allReduce(java.util.List<MemorySegment> buckets, DataType type, ReduceOp op);

    /**
     * Bucketed allReduce of float arrays, in place.
     *
     * @param buckets the arrays reduced in place (same lengths in the same order on every rank)
     * @param op the reduction operator; it must apply to the type
     */
    default void allReduce(float[][] buckets, ReduceOp op) {
        Arrays2.allReduceBuckets(this, buckets, DataType.F32, op);
    }

    /**
     * Bucketed allReduce of double arrays, in place.
     *
     * @param buckets the arrays reduced in place (same lengths in the same order on every rank)
     * @param op the reduction operator; it must apply to the type
     */
    default void allReduce(double[][] buckets, ReduceOp op) {
        Arrays2.allReduceBuckets(this, buckets, DataType.F64, op);
    }

    /**
     * Bucketed allReduce of 32-bit integer arrays, in place.
     *
     * @param buckets the arrays reduced in place (same lengths in the same order on every rank)
     * @param op the reduction operator; it must apply to the type
     */
    default void allReduce(int[][] buckets, ReduceOp op) {
        Arrays2.allReduceBuckets(this, buckets, DataType.I32, op);
    }

    /**
     * Bucketed allReduce of 64-bit integer arrays, in place.
     *
     * @param buckets the arrays reduced in place (same lengths in the same order on every rank)
     * @param op the reduction operator; it must apply to the type
     */
    default void allReduce(long[][] buckets, ReduceOp op) {
        Arrays2.allReduceBuckets(this, buckets, DataType.I64, op);
    }

    /**
     * Compressed allReduce with error feedback, in place: each rank adds its {@code residual} to {@code data}, sends
     * only the {@code compressor.kept(count)} elements its {@link Compressor} selects (indices and values) and keeps
     * the rest in {@code residual} for the next call; then every rank's {@code data} becomes the sum (SUM) or mean
     * (AVG) of what all ranks sent, with zeros where no rank sent anything. Bytes on the wire per rank are
     * {@code (worldSize - 1) x (4 + k x (4 + element size))} (an allgather of the compressed payloads) instead of about
     * {@code 2 x count x element size} for a dense allReduce. Every rank gets bit-identical results (payloads are
     * added in rank order on every rank).
     *
     * <p>{@code residual} holds {@code count} elements of F64 for F64 data and of F32 for F32, F16 and BF16 data (the
     * residual keeps what half precision would round away); start it at zeros and pass the same residual to every call
     * for the same tensor. If the call fails, neither {@code data} nor {@code residual} has changed.
     *
     * <p>Every rank must pass the same count, type, op, compressor kind and resulting k (the layout, checked as for
     * bucketed allReduce). A payload that breaks its format (docs/protocol.md) fails the call with a
     * {@link ProtocolException} naming the rank that sent it, before anything is written.
     *
     * @param data this rank's input, replaced by the result
     * @param type the element type: F16, BF16, F32 or F64
     * @param count the number of elements of {@code data}
     * @param op SUM or AVG
     * @param compressor selects the elements each rank sends (the same kind and resulting k on every rank)
     * @param residual the error-feedback residual of this tensor ({@code count} elements, F64 for F64 data, F32
     *         otherwise), updated
     * @throws IllegalArgumentException if type is not F16, BF16, F32 or F64, op is not SUM or AVG, count is negative or
     *         above 2^31 - 9, or a buffer is too small, read-only or the two overlap
     */
    void allReduceCompressed(MemorySegment data, DataType type, long count, ReduceOp op, Compressor compressor,
                             MemorySegment residual);

    /**
     * Compressed allReduce of floats with a float residual of the same length.
     *
     * @param data this rank's floats, replaced by the result
     * @param op SUM or AVG
     * @param compressor selects the elements each rank sends (the same kind and resulting k on every rank)
     * @param residual the error-feedback residual of this tensor (same length as data), updated
     */
    default void allReduceCompressed(float[] data, ReduceOp op, Compressor compressor, float[] residual) {
        Arrays2.allReduceCompressed(this, data, op, compressor, residual);
    }

    /**
     * Compressed allReduce of doubles with a double residual of the same length.
     *
     * @param data this rank's doubles, replaced by the result
     * @param op SUM or AVG
     * @param compressor selects the elements each rank sends (the same kind and resulting k on every rank)
     * @param residual the error-feedback residual of this tensor (same length as data), updated
     */
    default void allReduceCompressed(double[] data, ReduceOp op, Compressor compressor, double[] residual) {
        Arrays2.allReduceCompressed(this, data, op, compressor, residual);
    }

    /**
     * Reduces every rank's {@code in} into {@code root}'s {@code out} ({@code out} may equal {@code in}; on other
     * ranks it is ignored and may be null).
     *
     * @param in this rank's input
     * @param out receives the result on the root (may be {@code in}); ignored elsewhere, may be null
     * @param type the type of the elements
     * @param count the number of elements per rank
     * @param op the reduction operator; it must apply to the type
     * @param root the rank that receives the result, in [0, worldSize)
     */
    void reduce(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op, int root);

    /**
     * reduce of floats: {@code out} (root only; may be null elsewhere) receives the reduction of every rank's {@code in}.
     *
     * @param in this rank's input
     * @param out receives the result on the root (same length as {@code in}); ignored elsewhere, may be null
     * @param op the reduction operator; it must apply to the type
     * @param root the rank that receives the result, in [0, worldSize)
     */
    default void reduce(float[] in, float[] out, ReduceOp op, int root) {
        Arrays2.reduce(this, in, out, op, root);
    }

    /**
     * reduce of doubles: {@code out} (root only; may be null elsewhere) receives the reduction of every rank's {@code in}.
     *
     * @param in this rank's input
     * @param out receives the result on the root (same length as {@code in}); ignored elsewhere, may be null
     * @param op the reduction operator; it must apply to the type
     * @param root the rank that receives the result, in [0, worldSize)
     */
    default void reduce(double[] in, double[] out, ReduceOp op, int root) {
        Arrays2.reduce(this, in, out, op, root);
    }

    /**
     * reduce of 32-bit integers: {@code out} (root only; may be null elsewhere) receives the reduction of every rank's {@code in}.
     *
     * @param in this rank's input
     * @param out receives the result on the root (same length as {@code in}); ignored elsewhere, may be null
     * @param op the reduction operator; it must apply to the type
     * @param root the rank that receives the result, in [0, worldSize)
     */
    default void reduce(int[] in, int[] out, ReduceOp op, int root) {
        Arrays2.reduce(this, in, out, op, root);
    }

    /**
     * reduce of 64-bit integers: {@code out} (root only; may be null elsewhere) receives the reduction of every rank's {@code in}.
     *
     * @param in this rank's input
     * @param out receives the result on the root (same length as {@code in}); ignored elsewhere, may be null
     * @param op the reduction operator; it must apply to the type
     * @param root the rank that receives the result, in [0, worldSize)
     */
    default void reduce(long[] in, long[] out, ReduceOp op, int root) {
        Arrays2.reduce(this, in, out, op, root);
    }

    /**
     * {@code in} holds worldSize blocks of {@code count} elements; rank r's {@code out} receives the reduction over all
     * ranks of block r.
     *
     * @param in worldSize blocks of {@code count} elements; block r is reduced into rank r's out
     * @param out receives this rank's block of the reduction ({@code count} elements)
     * @param type the type of the elements
     * @param count the number of elements of each block
     * @param op the reduction operator; it must apply to the type
     */
    void reduceScatter(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op);

    /**
     * reduceScatter of floats: {@code in} holds worldSize x out.length elements.
     *
     * @param in worldSize blocks of out.length elements
     * @param out receives this rank's block of the reduction
     * @param op the reduction operator; it must apply to the type
     */
    default void reduceScatter(float[] in, float[] out, ReduceOp op) {
        Arrays2.reduceScatter(this, in, out, op);
    }

    /**
     * reduceScatter of doubles: {@code in} holds worldSize x out.length elements.
     *
     * @param in worldSize blocks of out.length elements
     * @param out receives this rank's block of the reduction
     * @param op the reduction operator; it must apply to the type
     */
    default void reduceScatter(double[] in, double[] out, ReduceOp op) {
        Arrays2.reduceScatter(this, in, out, op);
    }

    /**
     * reduceScatter of 32-bit integers: {@code in} holds worldSize x out.length elements.
     *
     * @param in worldSize blocks of out.length elements
     * @param out receives this rank's block of the reduction
     * @param op the reduction operator; it must apply to the type
     */
    default void reduceScatter(int[] in, int[] out, ReduceOp op) {
        Arrays2.reduceScatter(this, in, out, op);
    }

    /**
     * reduceScatter of 64-bit integers: {@code in} holds worldSize x out.length elements.
     *
     * @param in worldSize blocks of out.length elements
     * @param out receives this rank's block of the reduction
     * @param op the reduction operator; it must apply to the type
     */
    default void reduceScatter(long[] in, long[] out, ReduceOp op) {
        Arrays2.reduceScatter(this, in, out, op);
    }

    /**
     * Inclusive prefix reduction: rank r's {@code out} = in(0) op ... op in(r); AVG divides by r + 1.
     *
     * @param in this rank's input
     * @param out receives the inclusive prefix reduction up to this rank (same number of elements)
     * @param type the type of the elements
     * @param count the number of elements
     * @param op the reduction operator; it must apply to the type
     */
    void scan(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op);

    /**
     * Inclusive scan of floats.
     *
     * @param in this rank's input
     * @param out receives the inclusive prefix reduction up to this rank (same number of elements)
     * @param op the reduction operator; it must apply to the type
     */
    default void scan(float[] in, float[] out, ReduceOp op) {
        Arrays2.scan(this, in, out, op, false);
    }

    /**
     * Inclusive scan of doubles.
     *
     * @param in this rank's input
     * @param out receives the inclusive prefix reduction up to this rank (same number of elements)
     * @param op the reduction operator; it must apply to the type
     */
    default void scan(double[] in, double[] out, ReduceOp op) {
        Arrays2.scan(this, in, out, op, false);
    }

    /**
     * Inclusive scan of 32-bit integers.
     *
     * @param in this rank's input
     * @param out receives the inclusive prefix reduction up to this rank (same number of elements)
     * @param op the reduction operator; it must apply to the type
     */
    default void scan(int[] in, int[] out, ReduceOp op) {
        Arrays2.scan(this, in, out, op, false);
    }

    /**
     * Inclusive scan of 64-bit integers.
     *
     * @param in this rank's input
     * @param out receives the inclusive prefix reduction up to this rank (same number of elements)
     * @param op the reduction operator; it must apply to the type
     */
    default void scan(long[] in, long[] out, ReduceOp op) {
        Arrays2.scan(this, in, out, op, false);
    }

    /**
     * Exclusive prefix reduction: rank r's {@code out} = in(0) op ... op in(r-1); rank 0 gets the operator's identity
     * (0 for SUM and AVG, 1 for PROD, the type's largest value for MIN, smallest for MAX, all ones for BAND).
     *
     * @param in this rank's input
     * @param out receives the reduction of the ranks before this one (the identity on rank 0)
     * @param type the type of the elements
     * @param count the number of elements
     * @param op the reduction operator; it must apply to the type
     */
    void exclusiveScan(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op);

    /**
     * Exclusive scan of floats.
     *
     * @param in this rank's input
     * @param out receives the reduction of the ranks before this one (the identity on rank 0)
     * @param op the reduction operator; it must apply to the type
     */
    default void exclusiveScan(float[] in, float[] out, ReduceOp op) {
        Arrays2.scan(this, in, out, op, true);
    }

    /**
     * Exclusive scan of doubles.
     *
     * @param in this rank's input
     * @param out receives the reduction of the ranks before this one (the identity on rank 0)
     * @param op the reduction operator; it must apply to the type
     */
    default void exclusiveScan(double[] in, double[] out, ReduceOp op) {
        Arrays2.scan(this, in, out, op, true);
    }

    /**
     * Exclusive scan of 32-bit integers.
     *
     * @param in this rank's input
     * @param out receives the reduction of the ranks before this one (the identity on rank 0)
     * @param op the reduction operator; it must apply to the type
     */
    default void exclusiveScan(int[] in, int[] out, ReduceOp op) {
        Arrays2.scan(this, in, out, op, true);
    }

    /**
     * Exclusive scan of 64-bit integers.
     *
     * @param in this rank's input
     * @param out receives the reduction of the ranks before this one (the identity on rank 0)
     * @param op the reduction operator; it must apply to the type
     */
    default void exclusiveScan(long[] in, long[] out, ReduceOp op) {
        Arrays2.scan(this, in, out, op, true);
    }
}
