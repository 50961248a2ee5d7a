package io.nexar;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The barrier and the blocking collectives of a {@link Communicator} that move data without reducing it:
 * broadcast, allGather, allGatherV, allToAll, allToAllV, gather, gatherV, scatter and scatterV. The rules every
 * collective follows (matching calls on every rank, buffers, checks, one deadline) are those of
 * {@link ReducingCollectives}; {@link AsyncCollectives} has the asynchronous forms. Programs use
 * {@link Communicator}, which extends them all.
 */
public interface DataMovementCollectives extends RankGroup {
    /** Blocks until every rank of the communicator has called barrier (dissemination algorithm). */
    void barrier();

    /**
     * Copies {@code root}'s {@code count} elements of {@code data} into every other rank's {@code data}.
     *
     * @param data the root's elements to send; on the other ranks, receives them
     * @param type the type of the elements
     * @param count the number of elements
     * @param root the rank whose data is copied, in [0, worldSize)
     * @throws IllegalArgumentException if root is not in [0, worldSize) or data is too small
     */
    void broadcast(MemorySegment data, DataType type, long count, int root);

    /**
     * Broadcast of floats.
     *
     * @param data the root's elements to send; on the other ranks, receives them (same length on every rank)
     * @param root the rank whose data is copied, in [0, worldSize)
     */
    default void broadcast(float[] data, int root) {
        Arrays2.broadcast(this, data, root);
    }

    /**
     * Broadcast of doubles.
     *
     * @param data the root's elements to send; on the other ranks, receives them (same length on every rank)
     * @param root the rank whose data is copied, in [0, worldSize)
     */
    default void broadcast(double[] data, int root) {
        Arrays2.broadcast(this, data, root);
    }

    /**
     * Broadcast of 32-bit integers.
     *
     * @param data the root's elements to send; on the other ranks, receives them (same length on every rank)
     * @param root the rank whose data is copied, in [0, worldSize)
     */
    default void broadcast(int[] data, int root) {
        Arrays2.broadcast(this, data, root);
    }

    /**
     * Broadcast of 64-bit integers.
     *
     * @param data the root's elements to send; on the other ranks, receives them (same length on every rank)
     * @param root the rank whose data is copied, in [0, worldSize)
     */
    default void broadcast(long[] data, int root) {
        Arrays2.broadcast(this, data, root);
    }

    /**
     * {@code out} (worldSize x count elements) receives every rank's {@code count} elements of {@code in}.
     *
     * @param in this rank's {@code count} elements
     * @param out receives worldSize x count elements, rank j's at block j
     * @param type the type of the elements
     * @param count the number of elements per rank
     */
    void allGather(MemorySegment in, MemorySegment out, DataType type, long count);

    /**
     * allGather of floats: {@code out} holds worldSize x in.length elements.
     *
     * @param in this rank's elements (same length on every rank)
     * @param out receives worldSize x in.length elements, rank j's at block j
     */
    default void allGather(float[] in, float[] out) {
        Arrays2.allGather(this, in, out);
    }

    /**
     * allGather of doubles: {@code out} holds worldSize x in.length elements.
     *
     * @param in this rank's elements (same length on every rank)
     * @param out receives worldSize x in.length elements, rank j's at block j
     */
    default void allGather(double[] in, double[] out) {
        Arrays2.allGather(this, in, out);
    }

    /**
     * allGather of 32-bit integers: {@code out} holds worldSize x in.length elements.
     *
     * @param in this rank's elements (same length on every rank)
     * @param out receives worldSize x in.length elements, rank j's at block j
     */
    default void allGather(int[] in, int[] out) {
        Arrays2.allGather(this, in, out);
    }

    /**
     * allGather of 64-bit integers: {@code out} holds worldSize x in.length elements.
     *
     * @param in this rank's elements (same length on every rank)
     * @param out receives worldSize x in.length elements, rank j's at block j
     */
    default void allGather(long[] in, long[] out) {
        Arrays2.allGather(this, in, out);
    }

    /**
     * allGather with {@code counts[j]} elements from rank j, packed in rank order in {@code out}.
     *
     * @param in this rank's {@code counts[rank]} elements
     * @param out receives the sum of counts elements, in rank order
     * @param type the type of the elements
     * @param counts the number of elements from each rank, indexed by rank (the same on every rank)
     */
    void allGatherV(MemorySegment in, MemorySegment out, DataType type, long[] counts);

    /**
     * Block j of {@code in} ({@code count} elements) goes to rank j; block j of {@code out} comes from rank j.
     *
     * @param in worldSize blocks of {@code count} elements; block j goes to rank j
     * @param out receives worldSize blocks of {@code count} elements; block j comes from rank j
     * @param type the type of the elements
     * @param count the number of elements of each block
     */
    void allToAll(MemorySegment in, MemorySegment out, DataType type, long count);

    /**
     * allToAll with {@code sendCounts[j]} elements to and {@code recvCounts[j]} from rank j, packed in rank order.
     *
     * @param in the elements this rank sends, packed in rank order
     * @param sendCounts the number of elements to each rank, indexed by rank
     * @param out receives the elements from every rank, packed in rank order
     * @param recvCounts the number of elements from each rank, indexed by rank
     * @param type the type of the elements
     */
    void allToAllV(MemorySegment in, long[] sendCounts, MemorySegment out, long[] recvCounts, DataType type);

    /**
     * {@code root}'s {@code out} (worldSize x count) receives every rank's {@code in}; out may be null elsewhere.
     *
     * @param in this rank's {@code count} elements
     * @param out on the root, receives worldSize x count elements, rank j's at block j; ignored elsewhere, may be null
     * @param type the type of the elements
     * @param count the number of elements per rank
     * @param root the rank that receives, in [0, worldSize)
     */
    void gather(MemorySegment in, MemorySegment out, DataType type, long count, int root);

    /**
     * gather with {@code counts[j]} elements from rank j (every rank passes the same counts).
     *
     * @param in this rank's {@code counts[rank]} elements
     * @param out on the root, receives the sum of counts elements in rank order; ignored elsewhere, may be null
     * @param type the type of the elements
     * @param counts the number of elements from each rank, indexed by rank (the same on every rank)
     * @param root the rank that receives, in [0, worldSize)
     */
    void gatherV(MemorySegment in, MemorySegment out, DataType type, long[] counts, int root);

    /**
     * Rank j's {@code out} receives block j of {@code root}'s {@code in}; in may be null elsewhere.
     *
     * @param in on the root, worldSize blocks of {@code count} elements, block j for rank j; ignored elsewhere, may be
     *         null
     * @param out receives this rank's block ({@code count} elements)
     * @param type the type of the elements
     * @param count the number of elements per rank
     * @param root the rank that sends, in [0, worldSize)
     */
    void scatter(MemorySegment in, MemorySegment out, DataType type, long count, int root);

    /**
     * scatter with {@code counts[j]} elements for rank j (every rank passes the same counts).
     *
     * @param in on the root, the elements for every rank packed in rank order; ignored elsewhere, may be null
     * @param out receives this rank's {@code counts[rank]} elements
     * @param type the type of the elements
     * @param counts the number of elements for each rank, indexed by rank (the same on every rank)
     * @param root the rank that sends, in [0, worldSize)
     */
    void scatterV(MemorySegment in, MemorySegment out, DataType type, long[] counts, int root);

    /*
     * ByteBuffer forms of gather, scatter and allToAll: each buffer (heap or direct) holds the elements between its
     * position and limit, a view handed to the MemorySegment form (no copy). When the call returns, the position of
     * the buffer that received advances by the bytes received (the root's out of a gather; out of a scatter and an
     * allToAll); the buffers that send are not changed. Elements are moved as bytes, in the order they are in.
     */

    /**
     * {@link #gather(MemorySegment, MemorySegment, DataType, long, int)} of byte buffers; the root's {@code out}
     * position advances by worldSize x count elements.
     *
     * @param in this rank's {@code count} elements, from its position (not changed)
     * @param out on the root, receives worldSize x count elements from its position; ignored elsewhere, may be null
     * @param type the type of the elements
     * @param count the number of elements per rank
     * @param root the rank that receives, in [0, worldSize)
     * @throws IllegalArgumentException if a buffer the call uses is null, too small or (out) read-only, or as the
     *         segment form
     * @throws NexarException as the segment form
     */
    default void gather(ByteBuffer in, ByteBuffer out, DataType type, long count, int root) {
        CollectiveBuffers.gather(this, in, out, type, count, root);
    }

    /**
     * {@link #gatherV(MemorySegment, MemorySegment, DataType, long[], int)} of byte buffers; the root's {@code out}
     * position advances by the sum of counts elements.
     *
     * @param in this rank's {@code counts[rank]} elements, from its position (not changed)
     * @param out on the root, receives the sum of counts elements in rank order from its position; ignored elsewhere,
     *         may be null
     * @param type the type of the elements
     * @param counts the number of elements from each rank, indexed by rank (the same on every rank)
     * @param root the rank that receives, in [0, worldSize)
     * @throws IllegalArgumentException if a buffer the call uses is null, too small or (out) read-only, or as the
     *         segment form
     * @throws NexarException as the segment form
     */
    default void gatherV(ByteBuffer in, ByteBuffer out, DataType type, long[] counts, int root) {
        CollectiveBuffers.gatherV(this, in, out, type, counts, root);
    }

    /**
     * {@link #scatter(MemorySegment, MemorySegment, DataType, long, int)} of byte buffers; {@code out}'s position
     * advances by {@code count} elements.
     *
     * @param in on the root, worldSize blocks of {@code count} elements from its position (not changed); ignored
     *         elsewhere, may be null
     * @param out receives this rank's block from its position
     * @param type the type of the elements
     * @param count the number of elements per rank
     * @param root the rank that sends, in [0, worldSize)
     * @throws IllegalArgumentException if a buffer the call uses is null, too small or (out) read-only, or as the
     *         segment form
     * @throws NexarException as the segment form
     */
    default void scatter(ByteBuffer in, ByteBuffer out, DataType type, long count, int root) {
        CollectiveBuffers.scatter(this, in, out, type, count, root);
    }

    /**
     * {@link #scatterV(MemorySegment, MemorySegment, DataType, long[], int)} of byte buffers; {@code out}'s position
     * advances by {@code counts[rank]} elements.
     *
     * @param in on the root, the elements for every rank packed in rank order from its position (not changed);
     *         ignored elsewhere, may be null
     * @param out receives this rank's {@code counts[rank]} elements from its position
     * @param type the type of the elements
     * @param counts the number of elements for each rank, indexed by rank (the same on every rank)
     * @param root the rank that sends, in [0, worldSize)
     * @throws IllegalArgumentException if a buffer the call uses is null, too small or (out) read-only, or as the
     *         segment form
     * @throws NexarException as the segment form
     */
    default void scatterV(ByteBuffer in, ByteBuffer out, DataType type, long[] counts, int root) {
        CollectiveBuffers.scatterV(this, in, out, type, counts, root);
    }

    /**
     * {@link #allToAll(MemorySegment, MemorySegment, DataType, long)} of byte buffers; {@code out}'s position
     * advances by worldSize x count elements.
     *
     * @param in worldSize blocks of {@code count} elements from its position (not changed); block j goes to rank j
     * @param out receives worldSize blocks of {@code count} elements from its position; block j comes from rank j
     * @param type the type of the elements
     * @param count the number of elements of each block
     * @throws IllegalArgumentException if a buffer is null, too small or (out) read-only, or as the segment form
     * @throws NexarException as the segment form
     */
    default void allToAll(ByteBuffer in, ByteBuffer out, DataType type, long count) {
        CollectiveBuffers.allToAll(this, in, out, type, count);
    }

    /**
     * {@link #allToAllV(MemorySegment, long[], MemorySegment, long[], DataType)} of byte buffers; {@code out}'s
     * position advances by the sum of recvCounts elements.
     *
     * @param in the elements this rank sends, packed in rank order from its position (not changed)
     * @param sendCounts the number of elements to each rank, indexed by rank
     * @param out receives the elements from every rank, packed in rank order from its position
     * @param recvCounts the number of elements from each rank, indexed by rank
     * @param type the type of the elements
     * @throws IllegalArgumentException if a buffer is null, too small or (out) read-only, or as the segment form
     * @throws NexarException as the segment form
     */
    default void allToAllV(ByteBuffer in, long[] sendCounts, ByteBuffer out, long[] recvCounts, DataType type) {
        CollectiveBuffers.allToAllV(this, in, sendCounts, out, recvCounts, type);
    }
}
