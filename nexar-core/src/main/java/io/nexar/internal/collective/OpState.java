package io.nexar.internal.collective;

import io.nexar.DataType;
import io.nexar.ErrorContext;
import io.nexar.NexarException;
import io.nexar.ReduceOp;
import io.nexar.internal.protocol.Message;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Condition;

/**
 * One posted collective operation on one rank. Guarded by its {@link CollectiveEngine}'s lock: the driving thread
 * opens rounds and waits on {@link #progress}; transport threads apply arriving chunks into the open round's slots.
 */
final class OpState {
    final Group group;
    final long seq;
    final Fingerprint fingerprint;
    final ErrorContext context;
    final Schedule schedule;
    final DataType type;
    final ReduceOp combiner;
    final MemorySegment[] buffers; // by Buf ordinal
    final Condition progress;
    /** The open round, -1 before the first. */
    int round = -1;
    /** Receive slots of the open round by sender (communicator rank). */
    final Map<Integer, Slot> slots = new HashMap<>();
    int remaining;
    /** Chunks that arrived for later rounds, kept (and counted in the engine's store) until their round opens. */
    final List<StoredChunk> later = new ArrayList<>();
    NexarException failure;
    /** The failure came from another rank's abort: do not echo an abort back. */
    boolean informed;

    OpState(Group group, long seq, Fingerprint fingerprint, ErrorContext context, Schedule schedule,
            DataType type, ReduceOp combiner, MemorySegment[] buffers, Condition progress) {
        this.group = group;
        this.seq = seq;
        this.fingerprint = fingerprint;
        this.context = context;
        this.schedule = schedule;
        this.type = type;
        this.combiner = combiner;
        this.buffers = buffers;
        this.progress = progress;
    }

    /** Fails the operation once; the driver sees it at its next check. */
    void fail(NexarException e, boolean fromAbort) {
        if (failure == null) {
            failure = e;
            informed = fromAbort;
            progress.signalAll();
        }
    }

    /** A receive of the open round. */
    static final class Slot {
        final Step step;
        final MemorySegment target;
        final long byteOffset;
        final long expectedBytes;
        long receivedBytes;
        boolean done;

        Slot(Step step, MemorySegment target, long byteOffset, long expectedBytes) {
            this.step = step;
            this.target = target;
            this.byteOffset = byteOffset;
            this.expectedBytes = expectedBytes;
        }
    }

    /**
     * A chunk copied out of its frame because its operation or round was not open yet.
     *
     * @param worldSrc world rank of the sender
     * @param message the chunk, its payload a heap copy
     */
    record StoredChunk(int worldSrc, Message.Collective message) {
    }
}
