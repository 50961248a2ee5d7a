package io.nexar.cli;

import io.nexar.Communicator;
import io.nexar.DataType;
import io.nexar.Operation;
import io.nexar.ReduceOp;
import io.nexar.internal.collective.AlgorithmSelector;
import io.nexar.internal.collective.OpSpec;
import io.nexar.internal.util.Segments;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Runs a {@link BenchPlan} on one rank; every rank of the communicator runs it at the same time.
 *
 * <p>Method. Two off-heap buffers of the largest size are allocated once and reused for every operation, size and
 * iteration (no allocation per call, no page faults in the timed loop). For each size the input is filled with
 * {@link BenchData}'s pattern, then {@code warmup} untimed calls run back to back, then {@code iters} timed samples,
 * each preceded by a barrier. With batch timing (the default) a sample is {@code k} back-to-back calls, {@code k} chosen
 * so that a sample lasts about 5 ms, and its time per call is the sample's time divided by {@code k}: what
 * nccl-tests and Open MPI's peer benchmark measure. With iteration timing a sample is one call (what an application
 * waiting for one collective sees, including the skew with which ranks leave the barrier). Each rank times its own
 * samples; they are then combined with an allreduce MAX, so a sample's time is that of the slowest rank. The row
 * reports the median, minimum and maximum of those per-sample maxima. With {@code check}, the output of the last timed call is compared with the reference on every
 * rank and the largest error over ranks is reported.
 */
final class BenchRunner {
    private static final int SENDRECV_TAG = 0x6265;
    private static final byte POISON = 0x7F;
    /** Batch timing: the least duration of one sample (as Open MPI's peer benchmark, mpi_coll.c). */
    private static final long BATCH_NANOS = 5_000_000;
    private static final long MAX_BATCH = 100_000;
    /** Batch timing: estimates of the time per call whose median sets the batch size. */
    private static final int ESTIMATES = 5;
    /**
     * Warm-up calls between a barrier and a small allreduce MAX, the operations the timed phase runs between samples.
     * Without them the first timed samples ran while C2 recompiled code shared by all operations (a new message or
     * operation type deoptimises it), several times slower than the warm-up's own calls.
     */
    private static final int WARMUP_CHUNK = 100;

    /**
     * Test fault, for nexar's own tests only (the {@code nexar.test.} namespace, no setting): the system property
     * naming the one rank that never enters an operation, so that the others hang in their first one.
     */
    static final String ABSENT_PROPERTY = "nexar.test.bench.absent";
    private static final int ABSENT_TAG = 0x6162;

    private final Communicator comm;
    private final BenchPlan plan;
    private final AlgorithmSelector selector;
    private final PrintStream progress;
    /** The rank that never enters an operation ({@link #ABSENT_PROPERTY}), or -1. */
    private final int absent;
    private volatile String phase = "start-up";
    /** allreduce-compressed's residual (error feedback), or NULL. */
    private MemorySegment residual = MemorySegment.NULL;

    /**
     * @param selector the selector of the configuration the communicator runs with, to name the algorithm chosen
     * @param progress where rank 0 prints a progress line per row (other ranks print nothing), or null
     * @param absent the value of {@link #ABSENT_PROPERTY} (the rank that never enters an operation), or null
     */
    BenchRunner(Communicator comm, BenchPlan plan, AlgorithmSelector selector, PrintStream progress, String absent) {
        this.comm = comm;
        this.plan = plan;
        this.selector = selector;
        this.progress = comm.rank() == 0 ? progress : null;
        this.absent = absent == null ? -1 : Integer.parseInt(absent.strip());
    }

    /** What this rank is doing, for error messages, for example {@code allreduce 1024 B, iteration 3 of 20}. */
    /**
     * Sends to {@code next} while receiving from {@code prev}, as nccl-tests' sendrecv does: the receive is posted on
     * a virtual thread first, so the incoming message lands in {@code dst} instead of the unexpected-message store.
     */
    private static void sendRecv(Communicator comm, int next, int prev, MemorySegment src, MemorySegment dst) {
        var received = new java.util.concurrent.CompletableFuture<Void>();
        Thread.ofVirtual().start(() -> {
            try {
                comm.recv(prev, SENDRECV_TAG, dst);
                received.complete(null);
            } catch (Throwable t) {
                received.completeExceptionally(t);
            }
        });
        comm.send(next, SENDRECV_TAG, src);
        try {
            received.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }

    String phase() {
        return phase;
    }

    /**
     * The test fault of {@link #ABSENT_PROPERTY}: this rank waits in a receive that nobody sends to, so the others'
     * hang reports show it there, until their failure ends it.
     */
    private void stayAway() {
        int peer = (comm.rank() + 1) % comm.worldSize();
        phase = "recv from rank " + peer + " tag " + ABSENT_TAG + ", never entering an operation (test fault "
                + ABSENT_PROPERTY + ")";
        comm.recv(peer, ABSENT_TAG, new byte[1]);
        throw new IllegalStateException("rank " + comm.rank() + " received a message on tag " + ABSENT_TAG
                + ", which no rank of nexar bench sends");
    }

    /**
     * A buffer of {@code bytes} (rounded up to whole elements): off-heap from {@code arena}, or with {@code --memory
     * heap} a Java array of the element type (float[] for f32), as an application passes it.
     */
    private MemorySegment allocate(Arena arena, long bytes) {
        if (plan.memory().equals("native")) {
            return arena.allocate(bytes, 64);
        }
        int w = plan.type().byteSize();
        int n = Math.toIntExact((bytes + w - 1) / w);
        return switch (plan.type()) {
            case F32 -> MemorySegment.ofArray(new float[n]);
            case F64 -> MemorySegment.ofArray(new double[n]);
            case I32, U32 -> MemorySegment.ofArray(new int[n]);
            case I64, U64 -> MemorySegment.ofArray(new long[n]);
            case F16, BF16 -> MemorySegment.ofArray(new short[n]);
            default -> MemorySegment.ofArray(new byte[n]);
        };
    }

    /**
     * Measures every operation and size of the plan.
     *
     * @param sink receives each row on rank 0 as soon as it is measured
     * @return the rows on rank 0, an empty list on the other ranks
     */
    List<BenchResult> run(Consumer<BenchResult> sink) {
        int n = comm.worldSize();
        if (comm.rank() == absent) {
            stayAway();
        }
        var results = new ArrayList<BenchResult>();
        int total = plan.ops().stream().mapToInt(op -> plan.bytesFor(op, n).size()).sum();
        int done = 0;
        long[] times = new long[plan.iters()];
        try (Arena arena = Arena.ofShared()) {
            long max = plan.maxBytes(n);
            MemorySegment in = allocate(arena, max);
            MemorySegment out = allocate(arena, max);
            // allreduce-compressed's residual: F32 for f16, bf16 and f32, F64 for f64, one element per element
            residual = plan.ops().contains(BenchOp.ALLREDUCE_COMPRESSED)
                    ? arena.allocate(max / plan.type().byteSize() * residualType().byteSize() + 8, 64)
                    : MemorySegment.NULL;
            for (BenchOp op : plan.ops()) {
                var data = new BenchData(plan.type(), plan.redop(), op.reduces());
                for (long bytes : plan.bytesFor(op, n)) {
                    done++;
                    if (progress != null) {
                        progress.printf(Locale.ROOT, "bench: [%d/%d] %s %d B%n", done, total, op.cliName(), bytes);
                    }
                    BenchResult r = measure(op, bytes, in, out, data, times);
                    if (comm.rank() == 0) {
                        results.add(r);
                        sink.accept(r);
                    }
                }
            }
        }
        phase = "done";
        return results;
    }

    private BenchResult measure(BenchOp op, long bytes, MemorySegment in, MemorySegment out, BenchData data,
                                long[] times) {
        int n = comm.worldSize();
        int rank = comm.rank();
        DataType type = plan.type();
        ReduceOp redop = plan.redop();
        long count = bytes / type.byteSize();
        long block = op == BenchOp.BARRIER ? 0 : count / op.blocks(n);
        long blockBytes = block * type.byteSize();
        String what = op.cliName() + " " + bytes + " B";
        phase = what + ", filling buffers";
        MemorySegment src = in.asSlice(0, bytes);
        MemorySegment dst = out.asSlice(0, op == BenchOp.REDUCESCATTER ? blockBytes : bytes);
        dst.fill(POISON);
        long inCount = op == BenchOp.ALLGATHER ? block : count;
        if (op == BenchOp.BROADCAST) {
            if (rank == 0) {
                data.fill(dst, 0, count);
            }
        } else if (op != BenchOp.BARRIER) {
            data.fill(src, rank, inCount);
        }
        int next = (rank + 1) % n;
        int prev = (rank + n - 1) % n;
        MemorySegment gathered = src.asSlice(0, blockBytes);
        Runnable call = switch (op) {
            case ALLREDUCE -> () -> comm.allReduce(src, dst, type, count, redop);
            case BROADCAST -> () -> comm.broadcast(dst, type, count, 0);
            case REDUCE -> () -> comm.reduce(src, dst, type, count, redop, 0);
            case ALLGATHER -> () -> comm.allGather(gathered, dst, type, block);
            case REDUCESCATTER -> () -> comm.reduceScatter(src, dst, type, block, redop);
            case ALLTOALL -> () -> comm.allToAll(src, dst, type, block);
            case BARRIER -> comm::barrier;
            case SENDRECV -> () -> sendRecv(comm, next, prev, src, dst);
            case ALLREDUCE_COMPRESSED -> {
                var compressor = BenchPlan.parseCompressor(plan.compressor());
                MemorySegment res = residual.asSlice(0, count * residualType().byteSize());
                res.fill((byte) 0);
                // a fresh input every call, as a trainer's gradient (the copy is timed with the call)
                yield () -> {
                    Segments.copy(src, 0, dst, 0, src.byteSize());
                    comm.allReduceCompressed(dst, type, count, redop, compressor, res);
                };
            }
        };
        long[] probe = new long[1];
        for (int i = 0; i < plan.warmup(); i++) {
            phase = what + ", warm-up " + (i + 1) + " of " + plan.warmup();
            if (i % WARMUP_CHUNK == 0) {
                // what the timed samples also run between calls: the JIT must have seen it before they start
                comm.barrier();
                comm.allReduce(probe, ReduceOp.MAX);
            }
            call.run();
        }
        if (progress != null) {
            progress.printf(Locale.ROOT, "bench: %s: warmed up, timing %d iterations%n", what, times.length);
        }
        long perBatch = plan.timing().equals("batch") ? callsPerBatch(call, what) : 1;
        long cpu0 = processCpuNanos();
        for (int i = 0; i < times.length; i++) {
            phase = what + ", iteration " + (i + 1) + " of " + times.length;
            comm.barrier();
            long t0 = System.nanoTime();
            for (long j = 0; j < perBatch; j++) {
                call.run();
            }
            times[i] = (System.nanoTime() - t0) / perBatch;
        }
        long cpu1 = processCpuNanos();
        long alloc = allocatedPerCall(call, perBatch, what);
        double cpu = cpuPerCall(cpu0, cpu1, times.length * perBatch);
        phase = what + ", combining times";
        comm.allReduce(times, ReduceOp.MAX);
        double err = Double.NaN;
        long[] wire = {BenchResult.UNMEASURED, BenchResult.UNMEASURED};
        if (op == BenchOp.ALLREDUCE_COMPRESSED) {
            wire = wireBytes(count);
            comm.allReduce(wire, ReduceOp.MAX);
        }
        if (plan.check()) {
            phase = what + ", checking";
            double[] e = {op == BenchOp.ALLREDUCE_COMPRESSED ? verifyCompressed(src, dst, data, count)
                    : verify(op, dst, data, count, block)};
            comm.allReduce(e, ReduceOp.MAX);
            err = e[0];
        }
        long[] sorted = times.clone();
        Arrays.sort(sorted);
        int k = sorted.length;
        double medianNs = k % 2 == 1 ? sorted[k / 2] : (sorted[k / 2 - 1] + sorted[k / 2]) / 2.0;
        double algbw = bytes / medianNs;
        boolean barrier = op == BenchOp.BARRIER;
        return new BenchResult(op.cliName(), bytes, count, barrier ? "" : BenchPlan.name(type),
                op.reduces() ? BenchPlan.name(redop) : "", algorithm(op, count, block), medianNs / 1e3,
                sorted[0] / 1e3, sorted[k - 1] / 1e3, algbw, algbw * op.busFactor(n), err, alloc, wire[0], wire[1], cpu);
    }

    /** This JVM's CPU time so far (all threads), in nanoseconds, or -1 if the JVM cannot tell. */
    private static long processCpuNanos() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : -1;
    }

    /**
     * The CPU time all ranks' JVMs spent per call between two {@link #processCpuNanos} readings taken around the timed
     * calls (barriers between batches included), in microseconds, summed over the ranks' JVMs (each JVM once); or
     * {@link BenchResult#UNMEASURED} if a JVM cannot tell.
     */
    private double cpuPerCall(long before, long after, long calls) {
        // ranks that share a JVM (--in-process) count its CPU once: only the lowest of them contributes
        long[] pids = new long[comm.worldSize()];
        pids[comm.rank()] = ProcessHandle.current().pid();
        comm.allReduce(pids, ReduceOp.SUM);
        boolean counts = true;
        for (int r = 0; r < comm.rank(); r++) {
            counts &= pids[r] != pids[comm.rank()];
        }
        boolean unknown = before < 0 || after < 0;
        long[] spent = {unknown || !counts ? 0 : after - before, unknown ? 1 : 0};
        comm.allReduce(spent, ReduceOp.SUM);
        return spent[1] > 0 ? BenchResult.UNMEASURED : spent[0] / 1e3 / calls;
    }

    private DataType residualType() {
        return plan.type() == DataType.F64 ? DataType.F64 : DataType.F32;
    }

    /**
     * Payload bytes this rank sends per call of allreduce-compressed of {@code count} elements (the allgather of the
     * compressed payloads), and per call of a dense allreduce of the same size, from the schedules the engine runs.
     */
    private long[] wireBytes(long count) {
        int n = comm.worldSize();
        int w = plan.type().byteSize();
        long k = BenchPlan.parseCompressor(plan.compressor()).kept(count);
        long payload = io.nexar.internal.protocol.SparsePayload.bytes(k, w);
        var gather = new OpSpec(Operation.ALL_GATHER, DataType.U8, null, payload, -1, null, null, false);
        var dense = new OpSpec(Operation.ALL_REDUCE, plan.type(), plan.redop(), count, -1, null, null, true);
        return new long[] {selector.plan(comm.rank(), n, gather).bytesSent(1),
            selector.plan(comm.rank(), n, dense).bytesSent(w)};
    }

    /**
     * The check of allreduce-compressed: one more call on the input with a zero residual, then what every rank kept
     * in its residual is added back (a dense allreduce SUM of the residuals): error feedback loses nothing, so the
     * result plus the residuals must equal the dense reduction of the inputs (for AVG, plus the residuals' mean).
     */
    private double verifyCompressed(MemorySegment src, MemorySegment dst, BenchData data, long count) {
        int n = comm.worldSize();
        DataType rt = residualType();
        MemorySegment res = residual.asSlice(0, count * rt.byteSize());
        res.fill((byte) 0);
        Segments.copy(src, 0, dst, 0, src.byteSize());
        comm.allReduceCompressed(dst, plan.type(), count, plan.redop(), BenchPlan.parseCompressor(plan.compressor()),
                res);
        comm.allReduce(res, rt, count, ReduceOp.SUM);
        var residuals = new BenchData(rt, ReduceOp.SUM, true);
        double err = 0;
        for (long i = 0; i < count; i++) {
            double kept = residuals.get(res, i);
            double got = data.get(dst, i) + (plan.redop() == ReduceOp.AVG ? kept / n : kept);
            double want = data.expected(n, i);
            err = Math.max(err, Double.isNaN(got) ? Double.POSITIVE_INFINITY
                    : Math.abs(got - want) / Math.max(1, Math.abs(want)));
        }
        return err;
    }

    /**
     * The heap memory this JVM allocates per call, all threads together (the caller's, the transport's), measured over
     * one batch of back-to-back calls after the timed samples; the largest over ranks, or
     * {@link BenchResult#UNMEASURED} if a JVM cannot count allocations. Includes what runs beside the calls in those
     * milliseconds (heartbeats: a few hundred bytes per second).
     */
    private long allocatedPerCall(Runnable call, long calls, String what) {
        phase = what + ", counting allocations";
        var threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long[] perCall = {BenchResult.UNMEASURED};
        if (threads instanceof com.sun.management.ThreadMXBean counted && counted.isThreadAllocatedMemorySupported()
                && counted.isThreadAllocatedMemoryEnabled()) {
            comm.barrier();
            long before = counted.getTotalThreadAllocatedBytes();
            for (long i = 0; i < calls; i++) {
                call.run();
            }
            long after = counted.getTotalThreadAllocatedBytes();
            perCall[0] = before < 0 || after < 0 ? BenchResult.UNMEASURED : (after - before) / calls;
        }
        comm.allReduce(perCall, ReduceOp.MAX);
        return perCall[0];
    }

    /**
     * Batch timing: how many back-to-back calls make a sample of about {@link #BATCH_NANOS}. Each estimate is the
     * slowest rank's mean over calls timed after a barrier (so every rank runs the same number of calls): first over 3
     * calls, then {@link #ESTIMATES} times over about one batch's time, and the median of those is used. One JIT
     * compilation or GC pause in a single estimate (on a JVM they last milliseconds) must not make every batch short:
     * with short batches the skew with which ranks leave the barrier would be most of what is measured.
     */
    private long callsPerBatch(Runnable call, String what) {
        phase = what + ", estimating the batch size";
        long first = timePerCall(call, 3);
        long[] est = new long[ESTIMATES];
        for (int i = 0; i < est.length; i++) {
            est[i] = timePerCall(call, Math.clamp(BATCH_NANOS / first, 1, MAX_BATCH));
        }
        Arrays.sort(est);
        long median = est[est.length / 2];
        return Math.clamp((BATCH_NANOS + median - 1) / median, 1, MAX_BATCH);
    }

    /** The slowest rank's mean time of {@code calls} back-to-back calls after a barrier (the same count everywhere). */
    private long timePerCall(Runnable call, long calls) {
        comm.barrier();
        long t0 = System.nanoTime();
        for (long i = 0; i < calls; i++) {
            call.run();
        }
        long[] est = {Math.max(1, (System.nanoTime() - t0) / calls)};
        comm.allReduce(est, ReduceOp.MAX);
        return est[0];
    }

    /** The largest error of this rank's output. */
    private double verify(BenchOp op, MemorySegment dst, BenchData data, long count, long block) {
        int n = comm.worldSize();
        int rank = comm.rank();
        double err = 0;
        switch (op) {
            case ALLREDUCE, REDUCE -> {
                if (op == BenchOp.ALLREDUCE || rank == 0) {
                    for (long i = 0; i < count; i++) {
                        err = Math.max(err, data.error(dst, i, data.expected(n, i)));
                    }
                }
            }
            case BROADCAST -> {
                for (long i = 0; i < count; i++) {
                    err = Math.max(err, data.error(dst, i, data.moved(0, i)));
                }
            }
            case REDUCESCATTER -> {
                for (long i = 0; i < block; i++) {
                    err = Math.max(err, data.error(dst, i, data.expected(n, rank * block + i)));
                }
            }
            case ALLGATHER, ALLTOALL -> {
                for (int j = 0; j < n; j++) {
                    long from = op == BenchOp.ALLGATHER ? 0 : rank * block;
                    for (long i = 0; i < block; i++) {
                        err = Math.max(err, data.error(dst, j * block + i, data.moved(j, from + i)));
                    }
                }
            }
            case SENDRECV -> {
                int prev = (rank + n - 1) % n;
                for (long i = 0; i < count; i++) {
                    err = Math.max(err, data.error(dst, i, data.moved(prev, i)));
                }
            }
            case BARRIER, ALLREDUCE_COMPRESSED -> err = 0;
        }
        return err;
    }

    /** The short name of the algorithm the engine selects for this call, as {@code --algo} names it. */
    private String algorithm(BenchOp op, long count, long block) {
        if (op == BenchOp.SENDRECV) {
            return "p2p";
        }
        DataType type = plan.type();
        ReduceOp redop = op.reduces() ? plan.redop() : null;
        OpSpec spec = switch (op) {
            case ALLREDUCE -> new OpSpec(Operation.ALL_REDUCE, type, redop, count, -1, null, null, false);
            case ALLREDUCE_COMPRESSED -> null;
            case BROADCAST -> new OpSpec(Operation.BROADCAST, type, null, count, 0, null, null, true);
            case REDUCE -> new OpSpec(Operation.REDUCE, type, redop, count, 0, null, null, false);
            case ALLGATHER, REDUCESCATTER, ALLTOALL ->
                    new OpSpec(op.operation(), type, redop, block, -1, null, null, false);
            case BARRIER -> new OpSpec(Operation.BARRIER, DataType.U8, null, 0, -1, null, null, false);
            case SENDRECV -> throw new AssertionError(op);
        };
        if (spec == null) {
            return BenchPlan.parseCompressor(plan.compressor()) instanceof io.nexar.Compressor.TopK
                    ? "topk-allgather" : "randomk-allgather";
        }
        String name = selector.select(spec, comm.worldSize()).name().toLowerCase(Locale.ROOT).replace('_', '-');
        String suffix = switch (op) {
            case ALLREDUCE -> "-allreduce";
            case BROADCAST -> "-broadcast";
            case REDUCE -> "-reduce";
            case ALLGATHER -> "-allgather";
            case REDUCESCATTER -> "-reduce-scatter";
            case ALLTOALL -> "-all-to-all";
            case BARRIER, SENDRECV, ALLREDUCE_COMPRESSED -> "-barrier";
        };
        return name.endsWith(suffix) ? name.substring(0, name.length() - suffix.length()) : name;
    }
}
