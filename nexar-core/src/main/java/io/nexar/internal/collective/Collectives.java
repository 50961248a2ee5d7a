package io.nexar.internal.collective;

import static io.nexar.internal.collective.CallChecks.basic;
import static io.nexar.internal.collective.CallChecks.need;
import static io.nexar.internal.collective.CallChecks.needCount;
import static io.nexar.internal.collective.CallChecks.reduction;

import io.nexar.CollectiveHandle;
import io.nexar.Compressor;
import io.nexar.DataType;
import io.nexar.ErrorContext;
import io.nexar.NexarConfig;
import io.nexar.Operation;
import io.nexar.ReduceOp;
import io.nexar.internal.collective.CallRunner.Planned;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.Checks;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The collective operations of one communicator, each in a blocking form ({@code allReduce}) and an async one
 * ({@code allReduceAsync}). Both forms share the argument checks ({@link CallChecks}: caller mistakes are
 * {@link IllegalArgumentException}s naming the argument and its bound, raised before anything is sent) and the plan
 * (a cached {@link CallRunner.Planned}, or a {@link CollectiveCall} for calls with count arrays, bucketed or
 * compressed ones); then the blocking form runs the call on the calling thread ({@link CallRunner#blocking}) and the
 * async form on a virtual thread of its own ({@link CallRunner#async}).
 */
public final class Collectives {
    private final Group group;
    private final CallRunner runner;
    /**
     * The public operation these collectives run for ({@link #onBehalfOf}), or null for a user's own calls: their
     * fingerprints carry it ({@link Fingerprint#caller}), so that their errors name it.
     */
    private final Operation caller;
    /** Bucketed allReduce, with its staging buffer kept for the next call. */
    private final BucketedAllReduce bucketed;

    /**
     * The collectives of {@code group}'s communicator over {@code transport}.
     *
     * @param engine the engine of the transport's communicators
     * @param transport the transport
     * @param config the configuration
     * @param group the communicator's group
     */
    public Collectives(CollectiveEngine engine, Transport transport, NexarConfig config, Group group) {
        this.group = group;
        this.runner = new CallRunner(engine, transport, config, group);
        this.caller = null;
        this.bucketed = new BucketedAllReduce(runner);
        engine.abortsThrough(transport);
    }

    private Collectives(Group group, CallRunner runner, Operation caller) {
        this.group = group;
        this.runner = runner;
        this.caller = caller;
        this.bucketed = new BucketedAllReduce(runner);
    }

    /**
     * The same communicator's collectives, run on behalf of the public operation {@code publicOperation} (grow runs a
     * broadcast and an allReduce, split an allGather): their errors ({@link io.nexar.ErrorContext#operation()}, the
     * message) and the ranks' hang reports name {@code publicOperation}, the call the user made. The messages on the
     * wire are those of the collectives themselves. Shares this object's plans and sequence numbers.
     *
     * @param publicOperation the operation the user called
     * @return a view of this communicator's collectives
     */
    public Collectives onBehalfOf(Operation publicOperation) {
        Checks.notNull("publicOperation", publicOperation);
        return new Collectives(group, runner, publicOperation);
    }

    /** {@code fp}, labelled with {@link #caller} if these collectives run on behalf of another operation. */
    private Fingerprint labelled(Fingerprint fp) {
        return caller == null ? fp : fp.onBehalfOf(caller);
    }

    private int size() {
        return group.size();
    }

    private int rank() {
        return group.rank();
    }

    /** The group of this communicator. */
    public Group group() {
        return group;
    }

    /** Barrier. */
    public void barrier() {
        run(barrierPlan(), MemorySegment.NULL, MemorySegment.NULL);
    }

    /** Starts a barrier. */
    public CollectiveHandle barrierAsync() {
        return start(barrierPlan(), MemorySegment.NULL, MemorySegment.NULL);
    }

    private Planned barrierPlan() {
        return runner.planned(Operation.BARRIER, DataType.U8, null, 0, -1, false);
    }

    /** allReduce; {@code in} may equal {@code out} (in place). */
    public void allReduce(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op) {
        run(allReducePlan(in, out, type, count, op), in, out);
    }

    /** Starts an allReduce. */
    public CollectiveHandle allReduceAsync(MemorySegment in, MemorySegment out, DataType type, long count,
                                           ReduceOp op) {
        return start(allReducePlan(in, out, type, count, op), in, out);
    }

    private Planned allReducePlan(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op) {
        reduction(type, op, count);
        needCount("in", in, count, 1, type);
        needCount("out", out, count, 1, type);
        return runner.planned(Operation.ALL_REDUCE, type, op, count, -1, in.equals(out));
    }

    /**
     * Bucketed allReduce: every bucket is reduced in place, all of them as one operation over their concatenation
     * (one fingerprint with the {@linkplain Fingerprint#bucketLayout layout}, one schedule). The buckets are copied
     * into one staging buffer, reduced there and copied back (the executor addresses one segment per buffer; see
     * docs/collectives.md); the staging buffer is kept for the next call. One bucket runs as a plain allReduce.
     */
    public void allReduce(List<MemorySegment> buckets, DataType type, ReduceOp op) {
        allReduceCall(buckets, type, op).run();
    }

    /** Starts a bucketed allReduce. */
    public CollectiveHandle allReduceAsync(List<MemorySegment> buckets, DataType type, ReduceOp op) {
        return allReduceCall(buckets, type, op).start();
    }

    private CollectiveCall allReduceCall(List<MemorySegment> buckets, DataType type, ReduceOp op) {
        long[] counts = BucketedAllReduce.counts(buckets, type, op);
        if (counts.length == 1) {
            MemorySegment only = buckets.getFirst();
            return call(allReducePlan(only, only, type, counts[0], op), only, only);
        }
        return bucketed.call(buckets.toArray(MemorySegment[]::new), counts, type, op, this::labelled);
    }

    /**
     * Compressed allReduce (SUM or AVG of F16, BF16, F32 or F64) with error feedback through {@code residual}
     * ({@code count} elements of {@link CompressedAllReduce#residualType}): see {@link CompressedAllReduce}. The
     * payloads travel in an allgather whose fingerprint is that of the allReduce the caller made (type, operator,
     * count, and the compressor's {@linkplain Fingerprint#compressedLayout layout code}).
     */
    public void allReduceCompressed(MemorySegment buffer, DataType type, long count, ReduceOp op,
                                    Compressor compressor, MemorySegment residual) {
        allReduceCompressedCall(buffer, type, count, op, compressor, residual).run();
    }

    /** Starts a compressed allReduce. */
    public CollectiveHandle allReduceCompressedAsync(MemorySegment buffer, DataType type, long count, ReduceOp op,
                                                     Compressor compressor, MemorySegment residual) {
        return allReduceCompressedCall(buffer, type, count, op, compressor, residual).start();
    }

    private CollectiveCall allReduceCompressedCall(MemorySegment buffer, DataType type, long count, ReduceOp op,
                                                   Compressor compressor, MemorySegment residual) {
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
        var call = new CompressedAllReduce(buffer, type, count, op, compressor, residual, size());
        var fp = labelled(new Fingerprint(Operation.ALL_REDUCE, type, op, call.layout(), count));
        var spec = new OpSpec(Operation.ALL_GATHER, DataType.U8, null, call.payloadBytes, -1, null, null, false);
        return new CollectiveCall(runner, spec, fp, call.payload, call.gathered, call::encode, (seq, failure) -> {
            if (failure == null) {
                call.finish(size(), new ErrorContext(Operation.ALL_REDUCE, rank(), size(), group.id(), seq, -1, -1));
            }
        }, new MemorySegment[] {buffer, residual}, null);
    }

    /** broadcast of {@code data} from {@code root}. */
    public void broadcast(MemorySegment data, DataType type, long count, int root) {
        run(broadcastPlan(data, type, count, root), data, data);
    }

    /** Starts a broadcast. */
    public CollectiveHandle broadcastAsync(MemorySegment data, DataType type, long count, int root) {
        return start(broadcastPlan(data, type, count, root), data, data);
    }

    private Planned broadcastPlan(MemorySegment data, DataType type, long count, int root) {
        basic(type, count);
        Checks.rank("root", root, size());
        needCount("data", data, count, 1, type);
        return runner.planned(Operation.BROADCAST, type, null, count, root, true);
    }

    /** reduce to {@code root}; {@code out} is only used (and may be null elsewhere) on the root. */
    public void reduce(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op, int root) {
        run(reducePlan(in, out, type, count, op, root), in, rootOnly(root, out));
    }

    /** Starts a reduce. */
    public CollectiveHandle reduceAsync(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op,
                                        int root) {
        return start(reducePlan(in, out, type, count, op, root), in, rootOnly(root, out));
    }

    /** {@code out} on the root, else {@link MemorySegment#NULL}. */
    private MemorySegment rootOnly(int root, MemorySegment out) {
        return rank() == root ? out : MemorySegment.NULL;
    }

    private Planned reducePlan(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op,
                               int root) {
        reduction(type, op, count);
        Checks.rank("root", root, size());
        needCount("in", in, count, 1, type);
        if (rank() == root) {
            needCount("out", out, count, 1, type);
        }
        return runner.planned(Operation.REDUCE, type, op, count, root, in.equals(rootOnly(root, out)));
    }

    /** allGather: {@code out} receives every rank's {@code count} elements in rank order. */
    public void allGather(MemorySegment in, MemorySegment out, DataType type, long count) {
        run(allGatherPlan(in, out, type, count), in, out);
    }

    /** Starts an allGather. */
    public CollectiveHandle allGatherAsync(MemorySegment in, MemorySegment out, DataType type, long count) {
        return start(allGatherPlan(in, out, type, count), in, out);
    }

    private Planned allGatherPlan(MemorySegment in, MemorySegment out, DataType type, long count) {
        basic(type, count);
        needCount("in", in, count, 1, type);
        needCount("out", out, count, size(), type);
        return runner.planned(Operation.ALL_GATHER, type, null, count, -1, false);
    }

    /** allGatherV: rank j contributes {@code counts[j]} elements. */
    public void allGatherV(MemorySegment in, MemorySegment out, DataType type, long[] counts) {
        allGatherVCall(in, out, type, counts).run();
    }

    /** Starts an allGatherV. */
    public CollectiveHandle allGatherVAsync(MemorySegment in, MemorySegment out, DataType type, long[] counts) {
        return allGatherVCall(in, out, type, counts).start();
    }

    private CollectiveCall allGatherVCall(MemorySegment in, MemorySegment out, DataType type, long[] counts) {
        long total = counts(type, counts, "counts");
        need("in", in, counts[rank()], type, "counts[" + rank() + "] " + counts[rank()]);
        need("out", out, total, type, "the sum of counts " + total);
        return call(new OpSpec(Operation.ALL_GATHER, type, null, -1, -1, counts.clone(), null, false), in, out);
    }

    /** reduceScatter: {@code in} holds world x count elements; rank r gets the reduction of block r. */
    public void reduceScatter(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op) {
        run(reduceScatterPlan(in, out, type, count, op), in, out);
    }

    /** Starts a reduceScatter. */
    public CollectiveHandle reduceScatterAsync(MemorySegment in, MemorySegment out, DataType type, long count,
                                               ReduceOp op) {
        return start(reduceScatterPlan(in, out, type, count, op), in, out);
    }

    private Planned reduceScatterPlan(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op) {
        reduction(type, op, count);
        needCount("in", in, count, size(), type);
        needCount("out", out, count, 1, type);
        return runner.planned(Operation.REDUCE_SCATTER, type, op, count, -1, false);
    }

    /** allToAll: block j of {@code in} goes to rank j, block j of {@code out} comes from rank j. */
    public void allToAll(MemorySegment in, MemorySegment out, DataType type, long count) {
        run(allToAllPlan(in, out, type, count), in, out);
    }

    /** Starts an allToAll. */
    public CollectiveHandle allToAllAsync(MemorySegment in, MemorySegment out, DataType type, long count) {
        return start(allToAllPlan(in, out, type, count), in, out);
    }

    private Planned allToAllPlan(MemorySegment in, MemorySegment out, DataType type, long count) {
        basic(type, count);
        needCount("in", in, count, size(), type);
        needCount("out", out, count, size(), type);
        return runner.planned(Operation.ALL_TO_ALL, type, null, count, -1, false);
    }

    /** allToAllV with per-peer send and receive counts. */
    public void allToAllV(MemorySegment in, long[] sendCounts, MemorySegment out, long[] recvCounts,
                          DataType type) {
        allToAllVCall(in, sendCounts, out, recvCounts, type).run();
    }

    /** Starts an allToAllV. */
    public CollectiveHandle allToAllVAsync(MemorySegment in, long[] sendCounts, MemorySegment out, long[] recvCounts,
                                           DataType type) {
        return allToAllVCall(in, sendCounts, out, recvCounts, type).start();
    }

    private CollectiveCall allToAllVCall(MemorySegment in, long[] sendCounts, MemorySegment out, long[] recvCounts,
                                         DataType type) {
        long sends = counts(type, sendCounts, "sendCounts");
        long recvs = counts(type, recvCounts, "recvCounts");
        need("in", in, sends, type, "the sum of sendCounts " + sends);
        need("out", out, recvs, type, "the sum of recvCounts " + recvs);
        return call(new OpSpec(Operation.ALL_TO_ALL, type, null, -1, -1, sendCounts.clone(), recvCounts.clone(),
                false), in, out);
    }

    /** gather (counts == null) or gatherV to {@code root}. */
    public void gather(MemorySegment in, MemorySegment out, DataType type, long count, long[] counts, int root) {
        gatherCall(in, out, type, count, counts, root).run();
    }

    /** Starts a gather or gatherV. */
    public CollectiveHandle gatherAsync(MemorySegment in, MemorySegment out, DataType type, long count,
                                        long[] counts, int root) {
        return gatherCall(in, out, type, count, counts, root).start();
    }

    private CollectiveCall gatherCall(MemorySegment in, MemorySegment out, DataType type, long count, long[] counts,
                                      int root) {
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
        return call(new OpSpec(Operation.GATHER, type, null, counts == null ? count : -1, root,
                counts == null ? null : counts.clone(), null, false), in, o);
    }

    /** scatter (counts == null) or scatterV from {@code root}. */
    public void scatter(MemorySegment in, MemorySegment out, DataType type, long count, long[] counts, int root) {
        scatterCall(in, out, type, count, counts, root).run();
    }

    /** Starts a scatter or scatterV. */
    public CollectiveHandle scatterAsync(MemorySegment in, MemorySegment out, DataType type, long count,
                                         long[] counts, int root) {
        return scatterCall(in, out, type, count, counts, root).start();
    }

    private CollectiveCall scatterCall(MemorySegment in, MemorySegment out, DataType type, long count, long[] counts,
                                       int root) {
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
        return call(new OpSpec(Operation.SCATTER, type, null, counts == null ? count : -1, root,
                counts == null ? null : counts.clone(), null, false), i, out);
    }

    /** Inclusive ({@code exclusive} false) or exclusive prefix reduction. */
    public void scan(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op,
                     boolean exclusive) {
        run(scanPlan(in, out, type, count, op, exclusive), in, out);
    }

    /** Starts an inclusive or exclusive scan. */
    public CollectiveHandle scanAsync(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op,
                                      boolean exclusive) {
        return start(scanPlan(in, out, type, count, op, exclusive), in, out);
    }

    private Planned scanPlan(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op,
                             boolean exclusive) {
        reduction(type, op, count);
        needCount("in", in, count, 1, type);
        needCount("out", out, count, 1, type);
        return runner.planned(exclusive ? Operation.EXCLUSIVE_SCAN : Operation.SCAN, type, op, count, -1,
                in.equals(out));
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
        var spec = new OpSpec(Operation.ALL_GATHER, type, null, count, -1, null, null, false);
        new CollectiveCall(runner, spec, labelled(fingerprint(spec)), in, out, s -> seq[0] = s, null, null, null)
                .run();
        return seq[0];
    }

    /** The blocking path of a planned call: allocates nothing once the plan is cached. */
    private void run(Planned p, MemorySegment in, MemorySegment out) {
        runner.blocking(p.spec(), labelled(p.fp()), in, out, null, null);
    }

    /** The async path of a planned call. */
    private CollectiveHandle start(Planned p, MemorySegment in, MemorySegment out) {
        return call(p, in, out).start();
    }

    private CollectiveCall call(Planned p, MemorySegment in, MemorySegment out) {
        return new CollectiveCall(runner, p.spec(), labelled(p.fp()), in, out);
    }

    private CollectiveCall call(OpSpec spec, MemorySegment in, MemorySegment out) {
        return new CollectiveCall(runner, spec, labelled(fingerprint(spec)), in, out);
    }

    private static Fingerprint fingerprint(OpSpec spec) {
        return new Fingerprint(spec.operation(), spec.type(), spec.op(), spec.root(), spec.count());
    }

    private long counts(DataType type, long[] counts, String name) {
        return CallChecks.counts(type, counts, name, size());
    }
}
