package io.nexar;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The one path of the {@link ByteBuffer} forms of {@link Communicator}'s gather, scatter and allToAll (and their V
 * forms), as {@link P2pBuffers} is for point-to-point: each buffer becomes a {@link MemorySegment} view of the bytes
 * between its position and limit (heap or direct, no copy) handed to the segment form. Once the call returns, the
 * position of the buffer that received advances by the bytes it received; a buffer that only sends is not changed,
 * and neither is any buffer when the call fails. Elements are moved as bytes: their byte order is the caller's.
 */
final class CollectiveBuffers {
    private CollectiveBuffers() {
    }

    /** A view of {@code buffer}, or null where the operation ignores the argument (not the root) and it is null. */
    private static MemorySegment optional(ByteBuffer buffer) {
        return buffer == null ? null : P2pBuffers.view(buffer);
    }

    /** Moves {@code buffer}'s position past {@code elements} elements of {@code type}, which the call received. */
    private static void advance(ByteBuffer buffer, long elements, DataType type) {
        buffer.position(Math.toIntExact(buffer.position() + Math.multiplyExact(elements, type.byteSize())));
    }

    private static long sum(long[] counts) {
        if (counts == null) {
            throw new IllegalArgumentException("counts must not be null");
        }
        long total = 0;
        for (long n : counts) {
            total = Math.addExact(total, n);
        }
        return total;
    }

    static void gather(DataMovementCollectives c, ByteBuffer in, ByteBuffer out, DataType type, long count, int root) {
        c.gather(P2pBuffers.view(in), optional(out), type, count, root);
        if (c.rank() == root) {
            advance(out, Math.multiplyExact(count, c.worldSize()), type);
        }
    }

    static void gatherV(DataMovementCollectives c, ByteBuffer in, ByteBuffer out, DataType type, long[] counts,
                        int root) {
        c.gatherV(P2pBuffers.view(in), optional(out), type, counts, root);
        if (c.rank() == root) {
            advance(out, sum(counts), type);
        }
    }

    static void scatter(DataMovementCollectives c, ByteBuffer in, ByteBuffer out, DataType type, long count, int root) {
        c.scatter(optional(in), P2pBuffers.view(out), type, count, root);
        advance(out, count, type);
    }

    static void scatterV(DataMovementCollectives c, ByteBuffer in, ByteBuffer out, DataType type, long[] counts,
                         int root) {
        c.scatterV(optional(in), P2pBuffers.view(out), type, counts, root);
        advance(out, counts[c.rank()], type);
    }

    static void allToAll(DataMovementCollectives c, ByteBuffer in, ByteBuffer out, DataType type, long count) {
        c.allToAll(P2pBuffers.view(in), P2pBuffers.view(out), type, count);
        advance(out, Math.multiplyExact(count, c.worldSize()), type);
    }

    static void allToAllV(DataMovementCollectives c, ByteBuffer in, long[] sendCounts, ByteBuffer out,
                          long[] recvCounts, DataType type) {
        c.allToAllV(P2pBuffers.view(in), sendCounts, P2pBuffers.view(out), recvCounts, type);
        advance(out, sum(recvCounts), type);
    }
}
