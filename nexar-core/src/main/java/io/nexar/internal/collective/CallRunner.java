package io.nexar.internal.collective;

import io.nexar.CollectiveHandle;
import io.nexar.CollectiveMismatchException;
import io.nexar.CollectiveMismatchException.Field;
import io.nexar.DataType;
import io.nexar.ErrorContext;
import io.nexar.NexarConfig;
import io.nexar.Operation;
import io.nexar.ReduceOp;
import io.nexar.internal.collective.CollectiveCall.Ended;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.CallTimeout;
import io.nexar.internal.util.Deadline;
import io.nexar.internal.util.Segments;
import java.lang.foreign.MemorySegment;
import java.lang.ref.SoftReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongConsumer;

/**
 * Runs the {@link CollectiveCall}s of one communicator: plans them (with a cache), checks them across ranks when
 * setting {@code collective.verify} asks, posts them to the {@link CollectiveEngine}, and has the
 * {@link ScheduleExecutor} drive the schedule on the calling thread ({@link #blocking}) or on a virtual thread of its
 * own ({@link #async}). Both paths share {@link #verifyIfSet} and {@link #post}.
 */
final class CallRunner {
    /** Most plans kept; beyond, the cache starts over (a program with ever-new counts gains nothing from it). */
    private static final int MAX_PLANS = 64;
    /** Largest scratch buffer kept with a reused operation state. */
    private static final long MAX_KEPT_SCRATCH_BYTES = 64 << 10;
    /** Buffers an operation addresses ({@link Buf}). */
    private static final int BUFFERS = Buf.values().length;
    /** The allgather {@code collective.verify} runs before each call: the same on every rank, whatever they called. */
    private static final OpSpec VERIFY = new OpSpec(Operation.ALL_GATHER, DataType.I64, null, Fingerprint.LONGS, -1,
            null, null, false);
    private static final Fingerprint VERIFY_FP = new Fingerprint(VERIFY.operation(), VERIFY.type(), null, -1,
            VERIFY.count());

    private final CollectiveEngine engine;
    private final Transport transport;
    private final NexarConfig config;
    private final Group group;
    private final AlgorithmSelector selector;
    /**
     * Schedules planned for calls without count arrays, by their spec: a training loop repeats the same few calls, and
     * planning (rounds, steps, the per-round checks) was a third of the bytes a small collective allocated. Schedules
     * are immutable; the plan depends only on the spec, this rank, the size and the configuration, all fixed here.
     */
    private final ConcurrentHashMap<OpSpec, Schedule> plans = new ConcurrentHashMap<>();
    /** How many recent {@link #planned} calls are kept: a training step's few distinct calls. */
    static final int RECENT_PLANS = 4;
    /**
     * The last {@link #RECENT_PLANS} distinct {@link #planned} calls, replaced in turn: a loop that repeats up to four
     * calls (a training step's gradient and loss allreduces and its barrier; the bench's barrier and allreduce between
     * batches) finds each here, with no spec built and no hash computed. Slots are read and written without a lock;
     * a lost race only plans a call once more.
     */
    private final AtomicReferenceArray<Planned> recent = new AtomicReferenceArray<>(RECENT_PLANS);
    /** The slot the next new plan takes (racy increments only pick another slot). */
    private int nextRecent;
    /**
     * The state of this communicator's last blocking operation that ended well, reused by the next one
     * ({@link CollectiveEngine#post(Group, Fingerprint, Schedule, DataType, ReduceOp, MemorySegment[], OpState)});
     * null while a call uses it.
     */
    private final AtomicReference<OpState> spare = new AtomicReference<>();
    /**
     * The scratch buffer of the last blocking call that ended well and needed more than
     * {@link #MAX_KEPT_SCRATCH_BYTES} (a 64 MiB reduce-scatter of f32 needs 32 MiB), held softly: a loop repeating the
     * call reuses it instead of allocating and dropping that much heap per call, and the collector may take it back
     * when memory runs short.
     */
    private final AtomicReference<SoftReference<MemorySegment>> keptLarge = new AtomicReference<>();

    CallRunner(CollectiveEngine engine, Transport transport, NexarConfig config, Group group) {
        this.engine = engine;
        this.transport = transport;
        this.config = config;
        this.group = group;
        this.selector = new AlgorithmSelector(config);
    }

    /** A call without count arrays: its spec, its fingerprint and its schedule (all immutable). */
    record Planned(OpSpec spec, Fingerprint fp, Schedule schedule) {
        boolean matches(Operation operation, DataType type, ReduceOp op, long count, int root, boolean inPlace) {
            return spec.operation() == operation && spec.type() == type && spec.op() == op && spec.count() == count
                    && spec.root() == root && spec.inPlace() == inPlace;
        }
    }

    /**
     * The plan of a call without count arrays: a recent call's if the call is the same (a loop repeating up to
     * {@link #RECENT_PLANS} calls allocates no spec, fingerprint or schedule), else a new one from {@link #plan}.
     */
    Planned planned(Operation operation, DataType type, ReduceOp op, long count, int root, boolean inPlace) {
        for (int i = 0; i < RECENT_PLANS; i++) {
            Planned p = recent.getAcquire(i);
            if (p != null && p.matches(operation, type, op, count, root, inPlace)) {
                return p;
            }
        }
        var spec = new OpSpec(operation, type, op, count, root, null, null, inPlace);
        var q = new Planned(spec, new Fingerprint(operation, type, op, root, count), plan(spec));
        int slot = nextRecent;
        nextRecent = (slot + 1) % RECENT_PLANS;
        recent.setRelease(slot, q);
        return q;
    }

    /** The schedule of {@code spec}, from the cache when the spec carries no count arrays (compared by identity). */
    private Schedule plan(OpSpec spec) {
        if (spec.counts() != null || spec.recvCounts() != null) {
            return selector.plan(group.rank(), group.size(), spec);
        }
        Schedule cached = plans.get(spec);
        if (cached != null) {
            return cached;
        }
        Schedule planned = selector.plan(group.rank(), group.size(), spec);
        if (plans.size() >= MAX_PLANS) {
            plans.clear();
        }
        plans.put(spec, planned);
        return planned;
    }

    /**
     * Runs a call ({@link CollectiveCall#run}, given its fields) on the calling thread. A confined output is staged
     * through shared memory (transport threads write received data), and so is a confined input (a reducing receive
     * may read it there, as output = input op received); the state of the last blocking operation that
     * ended well is reused.
     */
    void blocking(OpSpec spec, Fingerprint fp, MemorySegment in, MemorySegment out, LongConsumer posted, Ended ended) {
        verifyIfSet(fp, ended);
        runHere(spec, fp, in, out, posted, ended);
    }

    /**
     * A zeroed scratch buffer of {@code bytes} for a blocking call ({@link MemorySegment#NULL} for none): the one
     * kept with the reused operation state ({@code small}, may be null) or, above {@link #MAX_KEPT_SCRATCH_BYTES},
     * the last large one if the collector left it (see {@link #keptLarge}), when it has that size; else a new one that
     * chunks can be sent from without a copy ({@link Segments#heapBytes}; a {@code long[]} scratch cost a copy of
     * every chunk sent from it, 32 MiB per 64 MiB reduce-scatter).
     */
    private MemorySegment scratchOf(long bytes, MemorySegment small) {
        if (bytes == 0) {
            return MemorySegment.NULL;
        }
        MemorySegment kept = small;
        if (bytes > MAX_KEPT_SCRATCH_BYTES) {
            SoftReference<MemorySegment> ref = keptLarge.getAndSet(null);
            kept = ref == null ? null : ref.get();
        }
        if (kept != null && kept.byteSize() == bytes) {
            return kept.fill((byte) 0); // as new; a memset, where a new array is a memset plus garbage
        }
        return Segments.heapBytes(bytes);
    }

    /** A heap copy of {@code s} ({@link Segments#heapBytes}), which every thread may access. */
    private static MemorySegment sharedCopy(MemorySegment s) {
        MemorySegment copy = Segments.heapBytes(s.byteSize());
        Segments.copy(s, 0, copy, 0, s.byteSize());
        return copy;
    }

    /** {@link #blocking} without {@link #verifyIfSet}. */
    private void runHere(OpSpec spec, Fingerprint fp, MemorySegment in, MemorySegment out, LongConsumer posted,
                         Ended ended) {
        MemorySegment staged = Segments.shared(out) ? null : sharedCopy(out);
        MemorySegment o = staged != null ? staged : out;
        MemorySegment i = staged != null && in.equals(out) ? staged : in;
        if (i == in && !Segments.shared(in)) { // a reducing receive may read the input on a transport thread
            i = sharedCopy(in);
        }
        Schedule schedule = plan(spec);
        OpState reuse = spare.getAndSet(null);
        long scratchBytes = scratchBytes(schedule, spec);
        MemorySegment scratch = scratchOf(scratchBytes, reuse == null ? null : reuse.scratch);
        Duration timeout = CallTimeout.collective(config);
        // the reused state's deadline: its call ended well, so nothing refers to it any more
        Deadline deadline = reuse != null && reuse.deadline != null ? reuse.deadline.restart(timeout)
                : Deadline.after(timeout);
        OpState op = post(spec, fp, schedule, i, o, scratch, reuse, posted, ended);
        op.deadline = deadline;
        try {
            ScheduleExecutor.run(engine, transport, op, deadline, config.chunkBytes());
        } catch (RuntimeException e) {
            ended(ended, op.seq, e);
            throw e;
        }
        long seq = op.seq;
        if (op.reusable()) {
            op.release();
            if (scratchBytes > MAX_KEPT_SCRATCH_BYTES) {
                keptLarge.set(new SoftReference<>(scratch));
            } else if (scratchBytes > 0) { // a call without scratch (a barrier) keeps the last one's for the next call
                op.scratch = scratch;
            } else if (op != reuse) {
                op.scratch = reuse == null ? null : reuse.scratch;
            }
            spare.set(op);
        }
        if (staged != null) {
            Segments.copy(staged, 0, out, 0, staged.byteSize());
        }
        ended(ended, seq, null);
    }

    /**
     * Starts {@code call} on a virtual thread of its own; its state is never reused (its handle outlives it).
     *
     * @throws IllegalArgumentException if a buffer of the call is a confined arena's
     */
    CollectiveHandle async(CollectiveCall call) {
        try {
            call.checkShared();
        } catch (RuntimeException e) {
            ended(call.ended, -1, e);
            throw e;
        }
        verifyIfSet(call.fp, call.ended);
        Schedule schedule = plan(call.spec);
        long scratchBytes = scratchBytes(schedule, call.spec);
        MemorySegment scratch = scratchBytes == 0 ? MemorySegment.NULL : Segments.heapBytes(scratchBytes);
        Deadline deadline = Deadline.after(CallTimeout.collective(config));
        OpState op = post(call.spec, call.fp, schedule, call.in, call.out, scratch, null, call.posted, call.ended);
        var handle = new AsyncOp(engine, op);
        Thread.ofVirtual().name("nexar-collective-c" + group.id() + "-s" + op.seq).start(() -> {
            Throwable failure = null;
            try {
                ScheduleExecutor.run(engine, transport, op, deadline, config.chunkBytes());
            } catch (Throwable t) {
                failure = t;
            }
            try {
                ended(call.ended, op.seq, failure);
            } catch (Throwable t) {
                if (failure == null) {
                    failure = t;
                } else {
                    failure.addSuppressed(t);
                }
            }
            handle.complete(failure);
        });
        return handle;
    }

    private static long scratchBytes(Schedule schedule, OpSpec spec) {
        return (schedule.scratchCount() * spec.type().byteSize() + 7) / 8 * 8;
    }

    /**
     * Posts a call to the engine (recording a refusal as its JFR event) and tells {@code posted} its sequence number.
     */
    private OpState post(OpSpec spec, Fingerprint fp, Schedule schedule, MemorySegment in, MemorySegment out,
                         MemorySegment scratch, OpState reuse, LongConsumer posted, Ended ended) {
        MemorySegment[] buffers = reuse != null ? reuse.buffers : new MemorySegment[BUFFERS];
        buffers[Buf.INPUT.ordinal()] = in;
        buffers[Buf.OUTPUT.ordinal()] = out;
        buffers[Buf.SCRATCH.ordinal()] = scratch;
        OpState op;
        try {
            op = engine.post(group, fp, schedule, spec.type(), spec.combiner(), buffers, reuse);
        } catch (RuntimeException e) {
            ScheduleExecutor.recordRefused(group, fp, spec.type(), e);
            ended(ended, -1, e);
            throw e;
        }
        if (posted != null) {
            posted.accept(op.seq);
        }
        return op;
    }

    /** {@link #verify} of {@code fp} when setting {@code collective.verify} is on. */
    private void verifyIfSet(Fingerprint fp, Ended ended) {
        if (config.collectiveVerify()) {
            try {
                verify(fp);
            } catch (RuntimeException e) {
                ended(ended, -1, e);
                throw e;
            }
        }
    }

    /** Runs {@code ended}, if any (see {@link Ended}). */
    private static void ended(Ended ended, long seq, Throwable failure) {
        if (ended != null) {
            ended.run(seq, failure);
        }
    }

    /**
     * Setting {@code collective.verify}: gathers every rank's fingerprint of the call about to run and fails if any
     * differs. Every rank sees the same table, so every rank fails, and none runs the mismatched call: the
     * communicator stays usable (the sequence numbers stay aligned, as every rank ran the same allgather).
     */
    private void verify(Fingerprint fp) {
        int size = group.size();
        long[] mine = fp.toLongs();
        long[] all = new long[Fingerprint.LONGS * size];
        // the check is part of the call: its errors name the operation the user called
        runHere(VERIFY, VERIFY_FP.onBehalfOf(fp.caller()), MemorySegment.ofArray(mine), MemorySegment.ofArray(all),
                null, null);
        List<Integer> differ = new ArrayList<>();
        Field field = null;
        int first = -1;
        for (int r = 0; r < size; r++) {
            Field f = Fingerprint.firstDifference(mine, 0, all, r * Fingerprint.LONGS);
            if (f != null) {
                differ.add(r);
                if (field == null) {
                    field = f;
                    first = r;
                }
            }
        }
        if (field != null) {
            throw new CollectiveMismatchException(new ErrorContext(fp.caller(), group.rank(), size, group.id(), -1,
                    -1, first), field, "does not match (collective.verify): this rank called "
                    + Fingerprint.describe(mine, 0) + " but rank " + first + " called "
                    + Fingerprint.describe(all, first * Fingerprint.LONGS) + "; ranks whose calls differ from this"
                    + " rank's: " + differ);
        }
    }
}
