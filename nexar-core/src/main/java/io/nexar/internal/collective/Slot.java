package io.nexar.internal.collective;

import java.lang.foreign.MemorySegment;

/**
 * One receive of an operation: of its open round ({@link RoundSlots}), or of a later one that chunks arrive for ahead
 * of it ({@link AheadSlots}). Guarded by its communicator's shard lock, except the bytes of a large chunk, which are
 * written with the lock released after they were claimed ({@code OpState.writeUnlocked}).
 */
final class Slot {
    Step step;
    MemorySegment target;
    long byteOffset;
    long expectedBytes;
    /** Bytes claimed by arrived chunks (some may still be being written). */
    long receivedBytes;
    /** Bytes written: the receive is done when all expected bytes are. */
    long committedBytes;
    boolean done;

    Slot(Step step, MemorySegment target, long byteOffset, long expectedBytes) {
        reset(step, target, byteOffset, expectedBytes);
    }

    /** Makes this slot a fresh receive (reused from round to round by {@link RoundSlots#claim}). */
    void reset(Step step, MemorySegment target, long byteOffset, long expectedBytes) {
        this.step = step;
        this.target = target;
        this.byteOffset = byteOffset;
        this.expectedBytes = expectedBytes;
        this.receivedBytes = 0;
        this.committedBytes = 0;
        this.done = false;
    }
}
