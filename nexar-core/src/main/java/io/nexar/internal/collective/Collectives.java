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
import io.nexar.internal.util.Checks;
import io.nexar.internal.util.Deadline;
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
    /** Any thread other than the caller: a segment it can access can be written by transport threads. */
    private static final Thread OTHER_THREAD = Thread.ofPlatform().unstarted(() -> { });
    /** Most plans kept; beyond, the cache starts over (a program with ever-new counts gains nothing from it). */
    private static final int MAX_PLANS = 64;

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
    private final java.util.concurrent.ConcurrentHashMap<OpSpec, Schedule> plans =
            new java.util.concurrent.ConcurrentHashMap<>();

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
        var spec = new OpSpec(Operation.BARRIER, DataType.U8, null, 0, -1, null, null, false);
        return exec(spec, MemorySegment.NULL, MemorySegment.NULL, async);
    }

    /** allReduce; {@code in} may equal {@code out} (in place). */
    public CollectiveHandle allReduce(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op,
                                      boolean async) {
        reduction(type, op, count);
        need("in", in, count, type, "count " + count);
        need("out", out, count, type, "count " + count);
        return exec(new OpSpec(Operation.ALL_REDUCE, type, op, count, -1, null, null, in.equals(out)), in, out, async);
    }

    /** broadcast of {@code data} from {@code root}. */
    public CollectiveHandle broadcast(MemorySegment data, DataType type, long count, int root, boolean async) {
        basic(type, count);
        Checks.rank("root", root, size());
        need("data", data, count, type, "count " + count);
        return exec(new OpSpec(Operation.BROADCAST, type, null, count, root, null, null, true), data, data, async);
    }

    /** reduce to {@code root}; {@code out} is only used (and may be null elsewhere) on the root. */
    public CollectiveHandle reduce(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op,
                                   int root, boolean async) {
        reduction(type, op, count);
        Checks.rank("root", root, size());
        need("in", in, count, type, "count " + count);
        if (rank() == root) {
            need("out", out, count, type, "count " + count);
        }
        MemorySegment o = rank() == root ? out : MemorySegment.NULL;
        return exec(new OpSpec(Operation.REDUCE, type, op, count, root, null, null, in.equals(o)), in, o, async);
    }

    /** allGather: {@code out} receives every rank's {@code count} elements in rank order. */
    public CollectiveHandle allGather(MemorySegment in, MemorySegment out, DataType type, long count, boolean async) {
        basic(type, count);
        need("in", in, count, type, "count " + count);
        need("out", out, Math.multiplyExact(count, size()), type, "count " + count + " x world " + size());
        return exec(new OpSpec(Operation.ALL_GATHER, type, null, count, -1, null, null, false), in, out, async);
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
        need("in", in, Math.multiplyExact(count, size()), type, "count " + count + " x world " + size());
        need("out", out, count, type, "count " + count);
        return exec(new OpSpec(Operation.REDUCE_SCATTER, type, op, count, -1, null, null, false), in, out, async);
    }

    /** allToAll: block j of {@code in} goes to rank j, block j of {@code out} comes from rank j. */
    public CollectiveHandle allToAll(MemorySegment in, MemorySegment out, DataType type, long count, boolean async) {
        basic(type, count);
        need("in", in, Math.multiplyExact(count, size()), type, "count " + count + " x world " + size());
        need("out", out, Math.multiplyExact(count, size()), type, "count " + count + " x world " + size());
        return exec(new OpSpec(Operation.ALL_TO_ALL, type, null, count, -1, null, null, false), in, out, async);
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
        need("in", in, count, type, "count " + count);
        need("out", out, count, type, "count " + count);
        return exec(new OpSpec(exclusive ? Operation.EXCLUSIVE_SCAN : Operation.SCAN, type, op, count, -1, null, null,
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
        need("in", in, count, type, "count " + count);
        need("out", out, Math.multiplyExact(count, size()), type, "count " + count + " x world " + size());
        long[] seq = new long[1];
        exec(new OpSpec(Operation.ALL_GATHER, type, null, count, -1, null, null, false), in, out, false,
                s -> seq[0] = s);
        return seq[0];
    }

    private CollectiveHandle exec(OpSpec spec, MemorySegment in, MemorySegment out, boolean async) {
        return exec(spec, in, out, async, null);
    }

    private CollectiveHandle exec(OpSpec spec, MemorySegment in, MemorySegment out, boolean async,
                                  java.util.function.LongConsumer posted) {
        if (config.collectiveVerify()) {
            verify(new Fingerprint(spec.operation(), spec.type(), spec.op(), spec.root(), spec.count()));
        }
        return run(spec, in, out, async, posted);
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
        run(VERIFY, MemorySegment.ofArray(mine), MemorySegment.ofArray(all), false, null);
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

    private CollectiveHandle run(OpSpec spec, MemorySegment in, MemorySegment out, boolean async,
                                 java.util.function.LongConsumer posted) {
        MemorySegment staged = null;
        if (!out.isAccessibleBy(OTHER_THREAD)) {
            if (async) {
                throw new IllegalArgumentException("async collectives need buffers that other threads can access"
                        + " (heap, global, auto or shared arena segments), not a confined arena's");
            }
            // transport threads write received data: stage a confined output through shared memory
            staged = MemorySegment.ofArray(new long[Math.toIntExact((out.byteSize() + 7) / 8)])
                    .asSlice(0, out.byteSize());
            staged.copyFrom(out);
        } else if (async && !in.isAccessibleBy(OTHER_THREAD)) {
            throw new IllegalArgumentException("async collectives need buffers that other threads can access"
                    + " (heap, global, auto or shared arena segments), not a confined arena's");
        }
        MemorySegment o = staged != null ? staged : out;
        MemorySegment i = staged != null && in.equals(out) ? staged : in;
        Schedule schedule = plan(spec);
        long scratchBytes = schedule.scratchCount() * spec.type().byteSize();
        MemorySegment scratch = scratchBytes == 0 ? MemorySegment.NULL
                : MemorySegment.ofArray(new long[Math.toIntExact((scratchBytes + 7) / 8)]);
        var fp = new Fingerprint(spec.operation(), spec.type(), spec.op(), spec.root(), spec.count());
        Deadline deadline = Deadline.after(config.collectiveTimeout());
        OpState op = engine.post(group, fp, seq -> new ErrorContext(spec.operation(), rank(), size(), group.id(), seq,
                -1, -1), schedule, spec.type(), spec.combiner(), new MemorySegment[] {i, o, scratch});
        if (posted != null) {
            posted.accept(op.seq);
        }
        if (!async) {
            ScheduleExecutor.run(engine, transport, op, deadline, config.chunkBytes());
            if (staged != null) {
                out.copyFrom(staged);
            }
            return null;
        }
        var handle = new AsyncOp(engine, op);
        Thread.ofVirtual().name("nexar-collective-c" + group.id() + "-s" + op.seq).start(() -> {
            try {
                ScheduleExecutor.run(engine, transport, op, deadline, config.chunkBytes());
                handle.complete(null);
            } catch (Throwable t) {
                handle.complete(t);
            }
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
