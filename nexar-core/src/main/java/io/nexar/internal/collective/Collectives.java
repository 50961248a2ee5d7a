package io.nexar.internal.collective;

import io.nexar.CollectiveHandle;
import io.nexar.CollectiveMismatchException;
import io.nexar.CollectiveMismatchException.Field;
import io.nexar.DataType;
import io.nexar.ErrorContext;
import io.nexar.NexarConfig;
import io.nexar.Operation;
import io.nexar.ReduceOp;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.CallTimeout;
import io.nexar.internal.util.Checks;
import io.nexar.internal.util.Deadline;
import io.nexar.internal.util.Segments;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The collective operations of one communicator: argument checks (caller mistakes are
 * {@link IllegalArgumentException}s naming the argument and its bound, raised before anything is sent), algorithm
 * selection, and posting to the {@link CollectiveEngine}; the {@link ScheduleExecutor} runs the schedule on the
 * calling thread (blocking forms) or on a virtual thread of its own ({@code start}, the async forms).
 */
public final class Collectives {
    /** Most plans kept; beyond, the cache starts over (a program with ever-new counts gains nothing from it). */
    private static final int MAX_PLANS = 64;
    /** Largest scratch buffer kept with a reused operation state. */
    private static final long MAX_KEPT_SCRATCH_BYTES = 64 << 10;
    /** Buffers an operation addresses ({@link Buf}). */
    private static final int BUFFERS = Buf.values().length;

    private final CollectiveEngine engine;
    private final Transport transport;
    private final NexarConfig config;
    private final Group group;
    private final AlgorithmSelector selector;
    /** Largest staging buffer of bucketed allReduce kept between calls. */
    private static final long MAX_CACHED_STAGING_BYTES = 256L << 20;
    /** The staging buffer of bucketed allReduce, kept for the next call; null while a call uses it. */
    private final java.util.concurrent.atomic.AtomicReference<MemorySegment> staging =
            new java.util.concurrent.atomic.AtomicReference<>();
    /**
     * Schedules planned for calls without count arrays, by their spec: a training loop repeats the same few calls, and
     * planning (rounds, steps, the per-round checks) was a third of the bytes a small collective allocated. Schedules
     * are immutable; the plan depends only on the spec, this rank, the size and the configuration, all fixed here.
     */
    private final java.util.concurrent.ConcurrentHashMap<OpSpec, Schedule> plans =
            new java.util.concurrent.ConcurrentHashMap<>();
    /** The last {@link #planned} call. */
    private volatile Planned last;
    /**
     * The state of this communicator's last blocking operation that ended well, reused by the next one
     * ({@link CollectiveEngine#post(Group, Fingerprint, Schedule, DataType, ReduceOp, MemorySegment[], OpState)});
     * null while a call uses it.
     */
    private final java.util.concurrent.atomic.AtomicReference<OpState> spare =
            new java.util.concurrent.atomic.AtomicReference<>();

    /** The collectives of {@code group}'s communicator over {@code transport}. */
    public Collectives(CollectiveEngine engine, Transport transport, NexarConfig config, Group group) {
        this.engine = engine;
        this.transport = transport;
        this.config = config;
        this.group = group;
        this.selector = new AlgorithmSelector(config);
        engine.abortsThrough(transport);
    }

    private int size() {
        return group.size();
    }

    /** The schedule of {@code spec}, from the cache when the spec carries no count arrays (compared by identity). */
    private Schedule plan(OpSpec spec) {
        if (spec.counts() != null || spec.recvCounts() != null) {
            return selector.plan(rank(), size(), spec);
        }
        Schedule cached = plans.get(spec);
        if (cached != null) {
            return cached;
        }
        Schedule planned = selector.plan(rank(), size(), spec);
        if (plans.size() >= MAX_PLANS) {
            plans.clear();
        }
        plans.put(spec, planned);
        return planned;
    }

    private int rank() {
        return group.rank();
    }

    /** Barrier. */
    public CollectiveHandle barrier(boolean async) {
        return exec(planned(Operation.BARRIER, DataType.U8, null, 0, -1, false), MemorySegment.NULL,
                MemorySegment.NULL, async);
    }

    /** allReduce; {@code in} may equal {@code out} (in place). */
    public CollectiveHandle allReduce(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op,
                                      boolean async) {
        reduction(type, op, count);
        needCount("in", in, count, 1, type);
        needCount("out", out, count, 1, type);
        return exec(planned(Operation.ALL_REDUCE, type, op, count, -1, in.equals(out)), in, out, async);
    }

    /**
     * Bucketed allReduce: every bucket is reduced in place, all of them as one operation over their concatenation
     * (one fingerprint with the {@linkplain Fingerprint#bucketLayout layout}, one schedule). The buckets are copied
     * into one staging buffer, reduced there and copied back (the executor addresses one segment per buffer; see
     * docs/collectives.md); the staging buffer is kept for the next call. One bucket runs as a plain allReduce.
     */
    public CollectiveHandle allReduce(List<MemorySegment> buckets, DataType type, ReduceOp op, boolean async) {
        Checks.notNull("buckets", buckets);
        reduction(type, op, 0);
        int w = type.byteSize();
        long[] counts = new long[buckets.size()];
        long total = 0;
        for (int b = 0; b < counts.length; b++) {
            MemorySegment seg = buckets.get(b);
            Checks.notNull("buckets[" + b + "]", seg);
            if (seg.byteSize() % w != 0) {
                throw new IllegalArgumentException("buckets[" + b + "] holds " + seg.byteSize() + " bytes, not a"
                        + " whole number of " + type + " elements (" + w + " bytes each)");
            }
            if (seg.isReadOnly()) {
                throw new IllegalArgumentException("buckets[" + b + "] is read-only");
            }
            if (async && !Segments.shared(seg)) {
                throw new IllegalArgumentException("async collectives need buffers that other threads can access"
                        + " (heap, global, auto or shared arena segments), not a confined arena's: buckets[" + b
                        + "]");
            }
            counts[b] = seg.byteSize() / w;
            total = Math.addExact(total, counts[b]);
        }
        if (counts.length == 1) {
            MemorySegment only = buckets.getFirst();
            return allReduce(only, only, type, counts[0], op, async);
        }
        MemorySegment[] segs = buckets.toArray(MemorySegment[]::new);
        long bytes = Math.multiplyExact(total, w);
        MemorySegment staging = takeStaging(bytes);
        long at = 0;
        for (MemorySegment seg : segs) {
            MemorySegment.copy(seg, 0, staging, at, seg.byteSize());
            at += seg.byteSize();
        }
        var fp = new Fingerprint(Operation.ALL_REDUCE, type, op, Fingerprint.bucketLayout(counts), total);
        var spec = new OpSpec(Operation.ALL_REDUCE, type, op, total, -1, null, null, true);
        return exec(spec, fp, staging, staging, async, null, (seq, failure) -> {
            try {
                if (failure == null) {
                    long from = 0;
                    for (MemorySegment seg : segs) {
                        MemorySegment.copy(staging, from, seg, 0, seg.byteSize());
                        from += seg.byteSize();
                    }
                }
            } finally {
                returnStaging(staging);
            }
        });
    }

    /**
     * Compressed allReduce (SUM or AVG of F16, BF16, F32 or F64) with error feedback through {@code residual}
     * ({@code count} elements of {@link CompressedAllReduce#residualType}): see {@link CompressedAllReduce}. The
     * payloads travel in an allgather whose fingerprint is that of the allReduce the caller made (type, operator,
     * count, and the compressor's {@linkplain Fingerprint#compressedLayout layout code}).
     */
    public CollectiveHandle allReduceCompressed(MemorySegment buffer, DataType type, long count, ReduceOp op,
                                                io.nexar.Compressor compressor, MemorySegment residual,
                                                boolean async) {
        reduction(type, op, count);
        Checks.notNull("compressor", compressor);
        if (!type.isFloatingPoint()) {
            throw new IllegalArgumentException("compressed allReduce reduces F16, BF16, F32 or F64, not " + type);
        }
        if (op != ReduceOp.SUM && op != ReduceOp.AVG) {
            throw new IllegalArgumentException("compressed allReduce applies SUM or AVG, not " + op + " (the"
                    + " elements a rank does not send count as zeros)");
        }
        if (count > CompressedAllReduce.MAX_COUNT) {
            throw new IllegalArgumentException("count " + count + " is not in [0, " + CompressedAllReduce.MAX_COUNT
                    + "] (compressed allReduce)");
        }
        needCount("buffer", buffer, count, 1, type);
        DataType rt = CompressedAllReduce.residualType(type);
        need("residual", residual, count, rt, "count " + count + " of the residual's type; the residual of " + type
                + " is " + rt);
        if (buffer.asSlice(0, count * type.byteSize()).asOverlappingSlice(
                residual.asSlice(0, count * rt.byteSize())).isPresent()) {
            throw new IllegalArgumentException("residual overlaps buffer");
        }
        if (async && !(Segments.shared(buffer) && Segments.shared(residual))) {
            throw new IllegalArgumentException("async collectives need buffers that other threads can access"
                    + " (heap, global, auto or shared arena segments), not a confined arena's");
        }
        var call = new CompressedAllReduce(buffer, type, count, op, compressor, residual, size());
        var fp = new Fingerprint(Operation.ALL_REDUCE, type, op, call.layout(), count);
        var spec = new OpSpec(Operation.ALL_GATHER, DataType.U8, null, call.payloadBytes, -1, null, null, false);
        return exec(spec, fp, call.payload, call.gathered, async, call::encode, (seq, failure) -> {
            if (failure == null) {
                call.finish(size(), new ErrorContext(Operation.ALL_REDUCE, rank(), size(), group.id(), seq, -1, -1));
            }
        });
    }

    /** The staging buffer of bucketed allReduce: the cached one if it is free and large enough, else a new one. */
    private MemorySegment takeStaging(long bytes) {
        MemorySegment s = staging.getAndSet(null);
        if (s == null || s.byteSize() < bytes) {
            s = MemorySegment.ofArray(new long[Math.toIntExact((Math.max(bytes, 8) + 7) / 8)]);
        }
        return s.asSlice(0, bytes);
    }

    private void returnStaging(MemorySegment s) {
        if (s.byteSize() <= MAX_CACHED_STAGING_BYTES) {
            // the whole array again: asSlice views share it, and a later, larger call may need all of it
            staging.set(MemorySegment.ofArray((long[]) s.heapBase().orElseThrow()));
        }
    }

    /** broadcast of {@code data} from {@code root}. */
    public CollectiveHandle broadcast(MemorySegment data, DataType type, long count, int root, boolean async) {
        basic(type, count);
        Checks.rank("root", root, size());
        needCount("data", data, count, 1, type);
        return exec(planned(Operation.BROADCAST, type, null, count, root, true), data, data, async);
    }

    /** reduce to {@code root}; {@code out} is only used (and may be null elsewhere) on the root. */
    public CollectiveHandle reduce(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op,
                                   int root, boolean async) {
        reduction(type, op, count);
        Checks.rank("root", root, size());
        needCount("in", in, count, 1, type);
        if (rank() == root) {
            needCount("out", out, count, 1, type);
        }
        MemorySegment o = rank() == root ? out : MemorySegment.NULL;
        return exec(planned(Operation.REDUCE, type, op, count, root, in.equals(o)), in, o, async);
    }

    /** allGather: {@code out} receives every rank's {@code count} elements in rank order. */
    public CollectiveHandle allGather(MemorySegment in, MemorySegment out, DataType type, long count, boolean async) {
        basic(type, count);
        needCount("in", in, count, 1, type);
        needCount("out", out, count, size(), type);
        return exec(planned(Operation.ALL_GATHER, type, null, count, -1, false), in, out, async);
    }

    /** allGatherV: rank j contributes {@code counts[j]} elements. */
    public CollectiveHandle allGatherV(MemorySegment in, MemorySegment out, DataType type, long[] counts,
                                       boolean async) {
        long total = counts(type, counts, "counts");
        need("in", in, counts[rank()], type, "counts[" + rank() + "] " + counts[rank()]);
        need("out", out, total, type, "the sum of counts " + total);
        return exec(new OpSpec(Operation.ALL_GATHER, type, null, -1, -1, counts.clone(), null, false), in, out,
                async);
    }

    /** reduceScatter: {@code in} holds world x count elements; rank r gets the reduction of block r. */
    public CollectiveHandle reduceScatter(MemorySegment in, MemorySegment out, DataType type, long count,
                                          ReduceOp op, boolean async) {
        reduction(type, op, count);
        needCount("in", in, count, size(), type);
        needCount("out", out, count, 1, type);
        return exec(planned(Operation.REDUCE_SCATTER, type, op, count, -1, false), in, out, async);
    }

    /** allToAll: block j of {@code in} goes to rank j, block j of {@code out} comes from rank j. */
    public CollectiveHandle allToAll(MemorySegment in, MemorySegment out, DataType type, long count, boolean async) {
        basic(type, count);
        needCount("in", in, count, size(), type);
        needCount("out", out, count, size(), type);
        return exec(planned(Operation.ALL_TO_ALL, type, null, count, -1, false), in, out, async);
    }

    /** allToAllV with per-peer send and receive counts. */
    public CollectiveHandle allToAllV(MemorySegment in, long[] sendCounts, MemorySegment out, long[] recvCounts,
                                      DataType type, boolean async) {
        long sends = counts(type, sendCounts, "sendCounts");
        long recvs = counts(type, recvCounts, "recvCounts");
        need("in", in, sends, type, "the sum of sendCounts " + sends);
        need("out", out, recvs, type, "the sum of recvCounts " + recvs);
        return exec(new OpSpec(Operation.ALL_TO_ALL, type, null, -1, -1, sendCounts.clone(), recvCounts.clone(),
                false), in, out, async);
    }

    /** gather (counts == null) or gatherV to {@code root}. */
    public CollectiveHandle gather(MemorySegment in, MemorySegment out, DataType type, long count, long[] counts,
                                   int root, boolean async) {
        Checks.rank("root", root, size());
        long total = counts == null ? Math.multiplyExact(basic(type, count), size()) : counts(type, counts, "counts");
        long mine = counts == null ? count : counts[rank()];
        need("in", in, mine, type, counts == null ? "count " + count : "counts[" + rank() + "] " + mine);
        MemorySegment o = MemorySegment.NULL;
        if (rank() == root) {
            need("out", out, total, type, counts == null ? "count " + count + " x world " + size()
                    : "the sum of counts " + total);
            o = out;
        }
        return exec(new OpSpec(Operation.GATHER, type, null, counts == null ? count : -1, root,
                counts == null ? null : counts.clone(), null, false), in, o, async);
    }

    /** scatter (counts == null) or scatterV from {@code root}. */
    public CollectiveHandle scatter(MemorySegment in, MemorySegment out, DataType type, long count, long[] counts,
                                    int root, boolean async) {
        Checks.rank("root", root, size());
        long total = counts == null ? Math.multiplyExact(basic(type, count), size()) : counts(type, counts, "counts");
        long mine = counts == null ? count : counts[rank()];
        need("out", out, mine, type, counts == null ? "count " + count : "counts[" + rank() + "] " + mine);
        MemorySegment i = MemorySegment.NULL;
        if (rank() == root) {
            need("in", in, total, type, counts == null ? "count " + count + " x world " + size()
                    : "the sum of counts " + total);
            i = in;
        }
        return exec(new OpSpec(Operation.SCATTER, type, null, counts == null ? count : -1, root,
                counts == null ? null : counts.clone(), null, false), i, out, async);
    }

    /** Inclusive ({@code exclusive} false) or exclusive prefix reduction. */
    public CollectiveHandle scan(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op,
                                 boolean exclusive, boolean async) {
        reduction(type, op, count);
        needCount("in", in, count, 1, type);
        needCount("out", out, count, 1, type);
        return exec(planned(exclusive ? Operation.EXCLUSIVE_SCAN : Operation.SCAN, type, op, count, -1,
                in.equals(out)), in, out, async);
    }

    // ------------------------------------------------------------------------------------------------ execution

    /** The group of this communicator. */
    public Group group() {
        return group;
    }

    /**
     * A blocking allGather of {@code count} elements per rank that returns its sequence number on the communicator
     * (every member gets the same one): the basis of agreed ids in {@link Splits}.
     */
    long allGatherSeq(MemorySegment in, MemorySegment out, DataType type, long count) {
        basic(type, count);
        needCount("in", in, count, 1, type);
        needCount("out", out, count, size(), type);
        long[] seq = new long[1];
        exec(new OpSpec(Operation.ALL_GATHER, type, null, count, -1, null, null, false), in, out, false,
                s -> seq[0] = s);
        return seq[0];
    }

    private CollectiveHandle exec(OpSpec spec, MemorySegment in, MemorySegment out, boolean async) {
        return exec(spec, in, out, async, null);
    }

    private CollectiveHandle exec(Planned p, MemorySegment in, MemorySegment out, boolean async) {
        return exec(p.spec(), p.fp(), in, out, async, null, null);
    }

    /** A call without count arrays: its spec, its fingerprint and its schedule (all immutable). */
    private record Planned(OpSpec spec, Fingerprint fp, Schedule schedule) {
    }

    /**
     * The plan of a call without count arrays: the last one's if the call is the same (a loop repeating one call
     * allocates no spec, fingerprint or schedule), else a new one from {@link #plan}.
     */
    private Planned planned(Operation operation, DataType type, ReduceOp op, long count, int root, boolean inPlace) {
        Planned p = last;
        if (p != null) {
            OpSpec s = p.spec();
            if (s.operation() == operation && s.type() == type && s.op() == op && s.count() == count
                    && s.root() == root && s.inPlace() == inPlace) {
                return p;
            }
        }
        var spec = new OpSpec(operation, type, op, count, root, null, null, inPlace);
        p = new Planned(spec, new Fingerprint(operation, type, op, root, count), plan(spec));
        last = p;
        return p;
    }

    private CollectiveHandle exec(OpSpec spec, MemorySegment in, MemorySegment out, boolean async,
                                  java.util.function.LongConsumer posted) {
        var fp = new Fingerprint(spec.operation(), spec.type(), spec.op(), spec.root(), spec.count());
        return exec(spec, fp, in, out, async, posted, null);
    }

    /**
     * Runs {@code spec}'s schedule under fingerprint {@code fp} (which may describe the call the user made rather than
     * the schedule that carries it, as for a compressed allReduce).
     *
     * @param posted told the operation's sequence number once it is posted, before any of its steps run (on the
     *               calling thread), or null
     * @param ended run when the schedule has ended, on the thread that drove it, with null on success or the
     *              failure; what it throws on success becomes the operation's failure. Null for none
     */
    private CollectiveHandle exec(OpSpec spec, Fingerprint fp, MemorySegment in, MemorySegment out, boolean async,
                                  java.util.function.LongConsumer posted, Ended ended) {
        if (config.collectiveVerify()) {
            try {
                verify(fp);
            } catch (RuntimeException e) {
                if (ended != null) {
                    ended.run(-1, e);
                }
                throw e;
            }
        }
        return run(spec, fp, in, out, async, posted, ended);
    }

    /** What runs when an operation's schedule has ended (see {@link #exec}). */
    @FunctionalInterface
    private interface Ended {
        /**
         * @param seq the operation's sequence number, or -1 if it never started
         * @param failure null on success
         */
        void run(long seq, Throwable failure);
    }

    /** The allgather {@code collective.verify} runs before each call: the same on every rank, whatever they called. */
    private static final OpSpec VERIFY = new OpSpec(Operation.ALL_GATHER, DataType.I64, null, Fingerprint.LONGS, -1,
            null, null, false);

    /**
     * Setting {@code collective.verify}: gathers every rank's fingerprint of the call about to run and fails if any
     * differs. Every rank sees the same table, so every rank fails, and none runs the mismatched call: the
     * communicator stays usable (the sequence numbers stay aligned, as every rank ran the same allgather).
     */
    private void verify(Fingerprint fp) {
        long[] mine = fp.toLongs();
        long[] all = new long[Fingerprint.LONGS * size()];
        run(VERIFY, new Fingerprint(VERIFY.operation(), VERIFY.type(), null, -1, VERIFY.count()),
                MemorySegment.ofArray(mine), MemorySegment.ofArray(all), false, null, null);
        List<Integer> differ = new ArrayList<>();
        Field field = null;
        int first = -1;
        for (int r = 0; r < size(); r++) {
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
            throw new CollectiveMismatchException(new ErrorContext(fp.operation(), rank(), size(), group.id(), -1,
                    -1, first), field, "does not match (collective.verify): this rank called "
                    + Fingerprint.describe(mine, 0) + " but rank " + first + " called "
                    + Fingerprint.describe(all, first * Fingerprint.LONGS) + "; ranks whose calls differ from this"
                    + " rank's: " + differ);
        }
    }

    private CollectiveHandle run(OpSpec spec, Fingerprint fp, MemorySegment in, MemorySegment out, boolean async,
                                 java.util.function.LongConsumer posted, Ended ended) {
        MemorySegment staged = null;
        if (!Segments.shared(out)) {
            if (async) {
                throw new IllegalArgumentException("async collectives need buffers that other threads can access"
                        + " (heap, global, auto or shared arena segments), not a confined arena's");
            }
            // transport threads write received data: stage a confined output through shared memory
            staged = MemorySegment.ofArray(new long[Math.toIntExact((out.byteSize() + 7) / 8)])
                    .asSlice(0, out.byteSize());
            staged.copyFrom(out);
        } else if (async && !Segments.shared(in)) {
            throw new IllegalArgumentException("async collectives need buffers that other threads can access"
                    + " (heap, global, auto or shared arena segments), not a confined arena's");
        }
        MemorySegment o = staged != null ? staged : out;
        MemorySegment i = staged != null && in.equals(out) ? staged : in;
        Schedule schedule = plan(spec);
        OpState op;
        OpState reuse = async ? null : spare.getAndSet(null); // an async operation is never reused (its handle)
        long scratchBytes = (schedule.scratchCount() * spec.type().byteSize() + 7) / 8 * 8;
        MemorySegment scratch;
        if (scratchBytes == 0) {
            scratch = MemorySegment.NULL;
        } else if (reuse != null && reuse.scratch != null && reuse.scratch.byteSize() == scratchBytes) {
            scratch = reuse.scratch.fill((byte) 0); // as new
        } else {
            scratch = MemorySegment.ofArray(new long[Math.toIntExact(scratchBytes / 8)]);
        }
        Deadline deadline = Deadline.after(CallTimeout.collective(config));
        MemorySegment[] buffers = reuse != null ? reuse.buffers : new MemorySegment[BUFFERS];
        buffers[Buf.INPUT.ordinal()] = i;
        buffers[Buf.OUTPUT.ordinal()] = o;
        buffers[Buf.SCRATCH.ordinal()] = scratch;
        try {
            op = engine.post(group, fp, schedule, spec.type(), spec.combiner(), buffers, reuse);
        } catch (RuntimeException e) {
            ScheduleExecutor.recordRefused(group, fp, spec.type(), e);
            if (ended != null) {
                ended.run(-1, e);
            }
            throw e;
        }
        if (posted != null) {
            posted.accept(op.seq);
        }
        if (!async) {
            try {
                ScheduleExecutor.run(engine, transport, op, deadline, config.chunkBytes());
            } catch (RuntimeException e) {
                if (ended != null) {
                    ended.run(op.seq, e);
                }
                throw e;
            }
            long seq = op.seq;
            if (op.reusable()) {
                op.release();
                op.scratch = scratchBytes <= MAX_KEPT_SCRATCH_BYTES ? scratch : null;
                spare.set(op);
            }
            if (staged != null) {
                out.copyFrom(staged);
            }
            if (ended != null) {
                ended.run(seq, null);
            }
            return null;
        }
        var handle = new AsyncOp(engine, op);
        Thread.ofVirtual().name("nexar-collective-c" + group.id() + "-s" + op.seq).start(() -> {
            Throwable failure = null;
            try {
                ScheduleExecutor.run(engine, transport, op, deadline, config.chunkBytes());
            } catch (Throwable t) {
                failure = t;
            }
            if (ended != null) {
                try {
                    ended.run(op.seq, failure);
                } catch (Throwable t) {
                    if (failure == null) {
                        failure = t;
                    } else {
                        failure.addSuppressed(t);
                    }
                }
            }
            handle.complete(failure);
        });
        return handle;
    }

    // ------------------------------------------------------------------------------------------------ checks

    private static long basic(DataType type, long count) {
        Checks.notNull("type", type);
        if (count < 0) {
            throw new IllegalArgumentException("count " + count + " is not in [0, " + Long.MAX_VALUE + "]");
        }
        return count;
    }

    private static void reduction(DataType type, ReduceOp op, long count) {
        basic(type, count);
        Checks.notNull("op", op);
        Kernels.check(type, op);
    }

    private long counts(DataType type, long[] counts, String name) {
        Checks.notNull("type", type);
        Checks.notNull(name, counts);
        if (counts.length != size()) {
            throw new IllegalArgumentException(name + " has " + counts.length + " entries, the world has "
                    + size() + " ranks");
        }
        long total = 0;
        for (int j = 0; j < counts.length; j++) {
            if (counts[j] < 0) {
                throw new IllegalArgumentException(name + "[" + j + "] " + counts[j] + " is not in [0, "
                        + Long.MAX_VALUE + "]");
            }
            total = Math.addExact(total, counts[j]);
        }
        return total;
    }

    /**
     * {@link #need} of {@code count} x {@code times} elements, described as "count N" (or "count N x world W"): built
     * only when it fails, so a call allocates no message.
     */
    private static void needCount(String name, MemorySegment seg, long count, int times, DataType type) {
        Checks.notNull(name, seg);
        long bytes = Math.multiplyExact(Math.multiplyExact(count, times), type.byteSize());
        if (seg.byteSize() < bytes || seg.isReadOnly() && !"in".equals(name)) {
            need(name, seg, count * times, type, "count " + count + (times == 1 ? "" : " x world " + times));
        }
    }

    private static void need(String name, MemorySegment seg, long elements, DataType type, String why) {
        Checks.notNull(name, seg);
        long bytes = Math.multiplyExact(elements, type.byteSize());
        if (seg.byteSize() < bytes) {
            throw new IllegalArgumentException(name + " holds " + seg.byteSize() + " bytes but needs " + bytes
                    + " (" + why + " of " + type + ")");
        }
        if (seg.isReadOnly() && !"in".equals(name)) {
            throw new IllegalArgumentException(name + " is read-only");
        }
    }
}
