package io.nexar;

import java.lang.foreign.MemorySegment;

/**
 * The asynchronous forms of the collectives of a {@link Communicator}: each returns a {@link CollectiveHandle} at
 * once and runs the operation on a virtual thread. Their buffers must be accessible from other threads (heap,
 * global, auto or shared arena segments). Otherwise they follow the rules of the blocking forms
 * ({@link ReducingCollectives}, {@link DataMovementCollectives}). Programs use {@link Communicator}, which extends
 * them all.
 */
public interface AsyncCollectives extends RankGroup {
    /**
     * Starts a barrier.
     *
     * @return the barrier's handle, returned at once
     */
    CollectiveHandle barrierAsync();

    /**
     * Starts an allReduce ({@code in} may equal {@code out}).
     *
     * @param in this rank's input
     * @param out receives the result ({@code count} elements); may be {@code in}
     * @param type the type of the elements
     * @param count the number of elements
     * @param op the reduction operator; it must apply to the type
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle allReduceAsync(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op);

    /**
     * Starts a bucketed allReduce; the buckets belong to the operation until it ends.
     *
     * @param buckets the buffers reduced in place, each a whole number of elements
     * @param type the type of the elements
     * @param op the reduction operator; it must apply to the type
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle allReduceAsync(java.util.List<MemorySegment> buckets, DataType type, ReduceOp op);

    /**
     * Starts a compressed allReduce (the compression runs on the calling thread before this returns).
     *
     * @param data this rank's input, replaced by the result
     * @param type the element type: F16, BF16, F32 or F64
     * @param count the number of elements of {@code data}
     * @param op SUM or AVG
     * @param compressor selects the elements each rank sends (the same kind and resulting k on every rank)
     * @param residual the error-feedback residual of this tensor ({@code count} elements, F64 for F64 data, F32
     *         otherwise), updated
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle allReduceCompressedAsync(MemorySegment data, DataType type, long count, ReduceOp op,
                                              Compressor compressor, MemorySegment residual);

    /**
     * Starts a broadcast.
     *
     * @param data the root's elements to send; on the other ranks, receives them
     * @param type the type of the elements
     * @param count the number of elements
     * @param root the rank whose data is copied, in [0, worldSize)
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle broadcastAsync(MemorySegment data, DataType type, long count, int root);

    /**
     * Starts a reduce.
     *
     * @param in this rank's input
     * @param out receives the result on the root (may be {@code in}); ignored elsewhere, may be null
     * @param type the type of the elements
     * @param count the number of elements per rank
     * @param op the reduction operator; it must apply to the type
     * @param root the rank that receives the result, in [0, worldSize)
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle reduceAsync(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op,
                                 int root);

    /**
     * Starts an allGather.
     *
     * @param in this rank's {@code count} elements
     * @param out receives worldSize x count elements, rank j's at block j
     * @param type the type of the elements
     * @param count the number of elements per rank
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle allGatherAsync(MemorySegment in, MemorySegment out, DataType type, long count);

    /**
     * Starts an allGatherV.
     *
     * @param in this rank's {@code counts[rank]} elements
     * @param out receives the sum of counts elements, in rank order
     * @param type the type of the elements
     * @param counts the number of elements from each rank, indexed by rank (the same on every rank)
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle allGatherVAsync(MemorySegment in, MemorySegment out, DataType type, long[] counts);

    /**
     * Starts a reduceScatter.
     *
     * @param in worldSize blocks of {@code count} elements; block r is reduced into rank r's out
     * @param out receives this rank's block of the reduction ({@code count} elements)
     * @param type the type of the elements
     * @param count the number of elements of each block
     * @param op the reduction operator; it must apply to the type
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle reduceScatterAsync(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op);

    /**
     * Starts an allToAll.
     *
     * @param in worldSize blocks of {@code count} elements; block j goes to rank j
     * @param out receives worldSize blocks of {@code count} elements; block j comes from rank j
     * @param type the type of the elements
     * @param count the number of elements of each block
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle allToAllAsync(MemorySegment in, MemorySegment out, DataType type, long count);

    /**
     * Starts an allToAllV.
     *
     * @param in the elements this rank sends, packed in rank order
     * @param sendCounts the number of elements to each rank, indexed by rank
     * @param out receives the elements from every rank, packed in rank order
     * @param recvCounts the number of elements from each rank, indexed by rank
     * @param type the type of the elements
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle allToAllVAsync(MemorySegment in, long[] sendCounts, MemorySegment out, long[] recvCounts,
                                    DataType type);

    /**
     * Starts a gather.
     *
     * @param in this rank's {@code count} elements
     * @param out on the root, receives worldSize x count elements, rank j's at block j; ignored elsewhere, may be null
     * @param type the type of the elements
     * @param count the number of elements per rank
     * @param root the rank that receives, in [0, worldSize)
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle gatherAsync(MemorySegment in, MemorySegment out, DataType type, long count, int root);

    /**
     * Starts a gatherV.
     *
     * @param in this rank's {@code counts[rank]} elements
     * @param out on the root, receives the sum of counts elements in rank order; ignored elsewhere, may be null
     * @param type the type of the elements
     * @param counts the number of elements from each rank, indexed by rank (the same on every rank)
     * @param root the rank that receives, in [0, worldSize)
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle gatherVAsync(MemorySegment in, MemorySegment out, DataType type, long[] counts, int root);

    /**
     * Starts a scatter.
     *
     * @param in on the root, worldSize blocks of {@code count} elements, block j for rank j; ignored elsewhere, may be
     *         null
     * @param out receives this rank's block ({@code count} elements)
     * @param type the type of the elements
     * @param count the number of elements per rank
     * @param root the rank that sends, in [0, worldSize)
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle scatterAsync(MemorySegment in, MemorySegment out, DataType type, long count, int root);

    /**
     * Starts a scatterV.
     *
     * @param in on the root, the elements for every rank packed in rank order; ignored elsewhere, may be null
     * @param out receives this rank's {@code counts[rank]} elements
     * @param type the type of the elements
     * @param counts the number of elements for each rank, indexed by rank (the same on every rank)
     * @param root the rank that sends, in [0, worldSize)
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle scatterVAsync(MemorySegment in, MemorySegment out, DataType type, long[] counts, int root);

    /**
     * Starts a scan.
     *
     * @param in this rank's input
     * @param out receives the inclusive prefix reduction up to this rank (same number of elements)
     * @param type the type of the elements
     * @param count the number of elements
     * @param op the reduction operator; it must apply to the type
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle scanAsync(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op);

    /**
     * Starts an exclusiveScan.
     *
     * @param in this rank's input
     * @param out receives the reduction of the ranks before this one (the identity on rank 0)
     * @param type the type of the elements
     * @param count the number of elements
     * @param op the reduction operator; it must apply to the type
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle exclusiveScanAsync(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op);
}
