package io.nexar.internal.collective;

import io.nexar.CollectiveHandle;
import java.lang.foreign.MemorySegment;
import java.util.function.LongConsumer;

/**
 * One collective call whose arguments {@link Collectives} has checked and that is not a cached plan (a call with
 * count arrays, a bucketed or a compressed allReduce; the async form of any call): {@link #run} runs it on the
 * calling thread, {@link #start} on a virtual thread of its own. Both take the same path through {@link CallRunner}
 * up to the posting of the operation; they differ only in who drives the schedule and in what happens to the buffers.
 */
final class CollectiveCall {
    private final CallRunner runner;
    final OpSpec spec;
    /** The fingerprint the ranks compare: may describe the call the user made rather than {@link #spec}. */
    final Fingerprint fp;
    final MemorySegment in;
    final MemorySegment out;
    /** Told the sequence number once the operation is posted, before any step runs (calling thread), or null. */
    final LongConsumer posted;
    /** Run when the schedule has ended, or null (see {@link Ended}). */
    final Ended ended;
    /** The caller's buffers an async run lets other threads touch, or null for {@link #in} and {@link #out}. */
    private final MemorySegment[] callerBuffers;
    /** The argument name of {@link #callerBuffers} in a refusal ("buckets"), or null for none. */
    private final String callerBuffersName;

    CollectiveCall(CallRunner runner, OpSpec spec, Fingerprint fp, MemorySegment in, MemorySegment out) {
        this(runner, spec, fp, in, out, null, null, null, null);
    }

    CollectiveCall(CallRunner runner, OpSpec spec, Fingerprint fp, MemorySegment in, MemorySegment out,
                   LongConsumer posted, Ended ended, MemorySegment[] callerBuffers, String callerBuffersName) {
        this.runner = runner;
        this.spec = spec;
        this.fp = fp;
        this.in = in;
        this.out = out;
        this.posted = posted;
        this.ended = ended;
        this.callerBuffers = callerBuffers;
        this.callerBuffersName = callerBuffersName;
    }

    /**
     * Runs the call on the calling thread and returns when it has ended; a confined output buffer is staged through
     * shared memory.
     */
    void run() {
        runner.blocking(spec, fp, in, out, posted, ended);
    }

    /**
     * Starts the call on a virtual thread of its own.
     *
     * @return the handle of the running operation
     * @throws IllegalArgumentException if a buffer of the call is a confined arena's (other threads cannot touch it)
     */
    CollectiveHandle start() {
        return runner.async(this);
    }

    /** Refuses an async run of a call with a buffer that other threads cannot access (see {@link #start}). */
    void checkShared() {
        if (callerBuffers == null) {
            CallChecks.needShared(out, null);
            CallChecks.needShared(in, null);
            return;
        }
        for (int b = 0; b < callerBuffers.length; b++) {
            CallChecks.needShared(callerBuffers[b], callerBuffersName == null ? null : callerBuffersName + "[" + b
                    + "]");
        }
    }


    /** What runs when an operation's schedule has ended, on the thread that drove it. */
    @FunctionalInterface
    interface Ended {
        /**
         * What throws on success becomes the operation's failure.
         *
         * @param seq the operation's sequence number, or -1 if it never started
         * @param failure null on success
         */
        void run(long seq, Throwable failure);
    }
}
