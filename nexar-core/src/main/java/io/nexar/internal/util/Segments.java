package io.nexar.internal.util;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Memory helpers for collectives and point-to-point alike: which threads may touch a caller's memory (the one test of
 * it), the library's own heap buffers, and the one way the library copies between segments.
 */
public final class Segments {
    /** A thread other than every caller (never started): a segment it can access, any thread can. */
    private static final Thread OTHER_THREAD = Thread.ofPlatform().unstarted(() -> { });

    private Segments() {
    }

    /**
     * Zeroed heap memory for the library's own buffers that chunks are sent from (scratch, staging, compressed
     * payloads): a {@code byte[]}, which a byte buffer can view, so the bulk lane encrypts or writes it where it lies.
     * A segment over a {@code long[]} cannot be viewed, and every chunk sent from it was copied first. Elements in it
     * are read and written with unaligned layouts (the reduction kernels, the codecs).
     *
     * @param bytes its size
     * @return a segment of {@code bytes} zero bytes, accessible by any thread
     */
    public static MemorySegment heapBytes(long bytes) {
        return MemorySegment.ofArray(new byte[Math.toIntExact(bytes)]);
    }

    /**
     * Copies {@code bytes} bytes from {@code src} at {@code srcOffset} to {@code dst} at {@code dstOffset}, as
     * {@link MemorySegment#copy(MemorySegment, long, MemorySegment, long, long)} does, but always through the JDK's
     * bulk copy ({@code Unsafe.copyMemory}). That five-argument copy moves fewer than 64 bytes with a Java loop of
     * 8-byte accesses (JDK 25, {@code jdk.internal.foreign.SegmentBulkOperations.copy}), and once that loop's profile
     * has seen a second destination type, HotSpot's C2 compiled it so that a 44-byte copy between two {@code byte[]}
     * segments left the 8-byte words at offsets 8 and 24 unwritten: a collective's receive
     * ({@code OpState.writePiece}) lost parts of chunks (docs/performance.md, "A miscompiled small copy"). This
     * overload has no Java loop to miscompile. Every copy between two segments in nexar-core, nexar-transport-quic
     * and nexar-cli goes through here, never through the five-argument copy or {@code copyFrom} (SegmentCopiesTest checks).
     *
     * @param src the source
     * @param srcOffset where in {@code src} the bytes start
     * @param dst the destination
     * @param dstOffset where in {@code dst} they go
     * @param bytes how many
     */
    public static void copy(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long bytes) {
        MemorySegment.copy(src, ValueLayout.JAVA_BYTE, srcOffset, dst, ValueLayout.JAVA_BYTE, dstOffset, bytes);
    }

    /**
     * Whether threads other than the caller can access {@code segment}: true for heap, global, automatic and shared
     * arena memory, false for a confined arena's. Transport threads write received data straight into shared memory;
     * confined memory has to be staged through shared memory (blocking calls) or is refused (asynchronous ones).
     *
     * @param segment the caller's memory
     * @return true if any thread may read and write it
     */
    public static boolean shared(MemorySegment segment) {
        return segment.isAccessibleBy(OTHER_THREAD);
    }

    /**
     * Whether {@link MemorySegment#asByteBuffer} can view {@code segment}: native memory or a {@code byte[]}; a heap
     * segment over another array (float[] etc.) it refuses with an exception, so callers check first.
     *
     * @param segment any segment
     * @return true if a byte buffer can view it
     */
    public static boolean byteBufferViewable(MemorySegment segment) {
        return segment.isNative() || segment.heapBase().orElse(null) instanceof byte[];
    }
}
