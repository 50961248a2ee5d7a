package io.nexar.internal.collective;

/**
 * The buffers a schedule works on. The executor binds them to memory: {@link #INPUT} and {@link #OUTPUT} to the
 * caller's segments (the same segment for in-place calls), {@link #SCRATCH} to temporary memory of
 * {@link Schedule#scratchCount()} elements that the operation owns and releases when it ends.
 */
public enum Buf {
    /** The caller's input; schedules only read it. */
    INPUT,
    /** The caller's output. */
    OUTPUT,
    /** Temporary memory owned by the operation. */
    SCRATCH
}
