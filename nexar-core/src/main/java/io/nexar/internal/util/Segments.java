package io.nexar.internal.util;

import java.lang.foreign.MemorySegment;

/** Which threads may touch a caller's memory: the one test of it, for collectives and point-to-point alike. */
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
