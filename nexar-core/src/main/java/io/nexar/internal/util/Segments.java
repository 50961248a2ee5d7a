package io.nexar.internal.util;

import java.lang.foreign.MemorySegment;

/** Which threads may touch a caller's memory: the one test of it, for collectives and point-to-point alike. */
public final class Segments {
    /** A thread other than every caller (never started): a segment it can access, any thread can. */
    private static final Thread OTHER_THREAD = Thread.ofPlatform().unstarted(() -> { });

    private Segments() {
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
