package io.nexar.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.CollectiveHandle;
import io.nexar.CollectiveMismatchException;
import io.nexar.Communicator;
import io.nexar.ConfigKey;
import io.nexar.DataType;
import io.nexar.NexarConfig;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.ReduceOp;
import io.nexar.testkit.Inputs;
import io.nexar.testkit.RankFailedException;
import io.nexar.testkit.ReferenceReduce;
import io.nexar.testkit.TestCluster;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The collective contract every transport must pass: results against a sequential reference for every operation,
 * type and operator, world sizes 1..9, counts 0, 1, below the world size, primes and larger; in place and out of
 * place; every algorithm forced; mismatch detection, timeouts and failures. A transport's test is a one-line
 * subclass that says how to start a {@link TestCluster}. Inputs are seeded; the seed is printed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class CollectiveContract {
    /** Seed of every random input; override with {@code -Dnexar.test.seed=...}. */
    protected static final long SEED = Long.getLong("nexar.test.seed", 0x5EED_C011L);
    private static final List<DataType> TYPES = List.of(DataType.values());

    /** For a transport's one-line subclass. */
    protected CollectiveContract() {
    }

    /**
     * Starts {@code worldSize} connected ranks with {@code config}.
     *
     * @param worldSize the number of ranks
     * @param config the configuration of every rank
     * @return the running cluster; the test closes it
     */
    protected abstract TestCluster start(int worldSize, NexarConfig config);

    /**
     * World size of {@link #aRootMismatchIsNeverSilent} (the 7; network transports may use fewer processes' worth).
     *
     * @return the world size, at least 3
     */
    protected int rootMismatchWorld() {
        return 7;
    }

    /**
     * A configuration for fast tests: small chunks and segments so that chunking and pipelining are exercised.
     *
     * @return a builder the tests add to or build as it is
     */
    protected NexarConfig.Builder config() {
        return NexarConfig.builder().ignoreEnvironment().p2pTimeout(Duration.ofSeconds(20))
                .collectiveTimeout(Duration.ofSeconds(20)).chunkBytes(1024).set(ConfigKey.PIPELINE_SEGMENT_SIZE, "1KiB");
    }

    static List<ReduceOp> opsFor(DataType type) {
        return List.of(ReduceOp.values()).stream().filter(o -> !(o.isBitwise() && type.isFloatingPoint())).toList();
    }

    static long[] counts(int world) {
        return new long[] {0, 1, Math.max(0, world - 1), 13, 1009};
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"ring", "recursive-doubling", "halving-doubling", "pipelined-ring", "rank-order"})
    void allReduceMatchesTheReferenceForEveryTypeOpAndWorldSize(String algorithm) {
        System.out.println("allReduce " + algorithm + " seed=" + SEED);
        for (int world = 1; world <= 9; world++) {
            int n = world;
            try (var cluster = start(n, config().set(ConfigKey.ALLREDUCE_ALGORITHM, algorithm).build())) {
                cluster.run(c -> {
                    int caseNo = 0;
                    for (DataType type : TYPES) {
                        for (ReduceOp op : opsFor(type)) {
                            long count = counts(n)[caseNo % 5];
                            long seed = SEED + caseNo * 31L;
                            var in = Inputs.exact(seed, n, count, type, op);
                            var expected = ReferenceReduce.fold(in, 0, count, type, op);
                            var mine = Inputs.copy(in[c.rank()]);
                            if (caseNo % 2 == 0) {
                                c.allReduce(mine, type, count, op);
                                same(mine, expected, "in-place %s %s count %d world %d seed %d", type, op, count, n,
                                        seed);
                            } else {
                                var out = Inputs.zeros(count, type);
                                c.allReduce(mine, out, type, count, op);
                                same(out, expected, "%s %s count %d world %d seed %d", type, op, count, n, seed);
                                same(mine, in[c.rank()], "input untouched");
                            }
                            caseNo++;
                        }
                    }
                    return null;
                });
            }
        }
    }

    @Test
    void everyOtherOperationMatchesTheReference() {
        System.out.println("everyOtherOperation seed=" + SEED);
        for (int world = 1; world <= 9; world++) {
            int n = world;
            for (String bcast : List.of("binomial", "scatter-allgather")) {
                var cfg = config().set(ConfigKey.BROADCAST_ALGORITHM, bcast)
                        .set(ConfigKey.ALLGATHER_ALGORITHM, bcast.equals("binomial") ? "ring" : "recursive-doubling")
                        .build();
                try (var cluster = start(n, cfg)) {
                    cluster.run(c -> {
                        int caseNo = 0;
                        for (DataType type : List.of(DataType.F32, DataType.BF16, DataType.I8, DataType.U64)) {
                            for (ReduceOp op : List.of(ReduceOp.SUM, ReduceOp.MAX, ReduceOp.AVG)) {
                                long count = counts(n)[caseNo % 5];
                                runAll(c, n, type, op, count, SEED + 7 * caseNo++);
                            }
                        }
                        return null;
                    });
                }
            }
        }
    }

    private static void runAll(Communicator c, int n, DataType type, ReduceOp op, long count, long seed) {
        int r = c.rank();
        int root = (int) (seed % n);
        String what = type + " " + op + " count " + count + " world " + n + " seed " + seed;
        var in = Inputs.exact(seed, n, count, type, op);
        // broadcast
        var data = r == root ? Inputs.copy(in[root]) : Inputs.zeros(count, type);
        c.broadcast(data, type, count, root);
        same(data, in[root], "broadcast " + what);
        // reduce
        var out = Inputs.zeros(count, type);
        c.reduce(Inputs.copy(in[r]), r == root ? out : null, type, count, op, root);
        if (r == root) {
            same(out, ReferenceReduce.fold(in, 0, count, type, op), "reduce " + what);
        }
        // allGather, gather: every rank's input in rank order
        var all = Inputs.zeros(count * n, type);
        c.allGather(Inputs.copy(in[r]), all, type, count);
        var gathered = Inputs.zeros(count * n, type);
        c.gather(Inputs.copy(in[r]), r == root ? gathered : null, type, count, root);
        int w = type.byteSize();
        for (int j = 0; j < n; j++) {
            same(all.asSlice(j * count * w, count * w), in[j], "allGather block " + j + " " + what);
            if (r == root) {
                same(gathered.asSlice(j * count * w, count * w), in[j], "gather block " + j + " " + what);
            }
        }
        // reduceScatter: rank r gets block r (W2)
        var big = Inputs.exact(seed + 1, n, count * n, type, op);
        var block = Inputs.zeros(count, type);
        c.reduceScatter(Inputs.copy(big[r]), block, type, count, op);
        same(block, ReferenceReduce.fold(big, r * count, count, type, op), "reduceScatter " + what);
        // scatter: rank j gets block j of the root's big input
        var part = Inputs.zeros(count, type);
        c.scatter(r == root ? Inputs.copy(big[root]) : null, part, type, count, root);
        same(part, big[root].asSlice(r * count * w, count * w), "scatter " + what);
        // allToAll: block j of rank r's input goes to rank j at block r
        var swapped = Inputs.zeros(count * n, type);
        c.allToAll(Inputs.copy(big[r]), swapped, type, count);
        for (int j = 0; j < n; j++) {
            same(swapped.asSlice(j * count * w, count * w), big[j].asSlice(r * count * w, count * w),
                    "allToAll block " + j + " " + what);
        }
        // scans
        var scan = Inputs.zeros(count, type);
        c.scan(Inputs.copy(in[r]), scan, type, count, op);
        same(scan, ReferenceReduce.prefix(in, r + 1, 0, count, type, op), "scan " + what);
        var ex = Inputs.zeros(count, type);
        c.exclusiveScan(Inputs.copy(in[r]), ex, type, count, op);
        same(ex, ReferenceReduce.prefix(in, r, 0, count, type, op), "exclusiveScan " + what);
        // V forms: rank j contributes (j + count) % 4 elements
        long[] counts = new long[n];
        for (int j = 0; j < n; j++) {
            counts[j] = (j + count) % 4;
        }
        long total = java.util.Arrays.stream(counts).sum();
        var vall = Inputs.zeros(total, type);
        c.allGatherV(Inputs.copy(in[r]).asSlice(0, Math.min(count, counts[r]) * w), vall, type,
                capped(counts, count));
        var vgat = Inputs.zeros(total, type);
        c.gatherV(Inputs.copy(in[r]).asSlice(0, Math.min(count, counts[r]) * w), r == root ? vgat : null, type,
                capped(counts, count), root);
        long off = 0;
        for (int j = 0; j < n; j++) {
            long k = Math.min(count, counts[j]);
            same(vall.asSlice(off * w, k * w), in[j].asSlice(0, k * w), "allGatherV block " + j + " " + what);
            if (r == root) {
                same(vgat.asSlice(off * w, k * w), in[j].asSlice(0, k * w), "gatherV block " + j + " " + what);
            }
            off += k;
        }
        c.barrier();
    }

    private static long[] capped(long[] counts, long count) {
        return java.util.Arrays.stream(counts).map(k -> Math.min(k, count)).toArray();
    }

    @Test
    void arrayOverloadsOfEveryPrimitiveTypeMatchTheReference() {
        int n = 3;
        try (var cluster = start(n, config().build())) {
            cluster.run(c -> {
                int r = c.rank();
                // small integers: every type reduces them exactly, so one expectation serves all four
                var allGathered = new float[2 * n];
                c.allGather(new float[] {r, 10 + r}, allGathered);
                assertThat(allGathered).containsExactly(0, 10, 1, 11, 2, 12);
                var ad = new double[2 * n];
                c.allGather(new double[] {r, 10 + r}, ad);
                assertThat(ad).containsExactly(0, 10, 1, 11, 2, 12);
                var al = new long[2 * n];
                c.allGather(new long[] {r, 10 + r}, al);
                assertThat(al).containsExactly(0, 10, 1, 11, 2, 12);
                var rsF = new float[1];
                c.reduceScatter(new float[] {1, 2, 3}, rsF, ReduceOp.SUM);
                assertThat(rsF[0]).isEqualTo(3f * (r + 1));
                var rsD = new double[1];
                c.reduceScatter(new double[] {1, 2, 3}, rsD, ReduceOp.SUM);
                assertThat(rsD[0]).isEqualTo(3.0 * (r + 1));
                var rsI = new int[1];
                c.reduceScatter(new int[] {1, 2, 3}, rsI, ReduceOp.SUM);
                assertThat(rsI[0]).isEqualTo(3 * (r + 1));
                var rsL = new long[1];
                c.reduceScatter(new long[] {1, 2, 3}, rsL, ReduceOp.MAX);
                assertThat(rsL[0]).isEqualTo(r + 1);
                var red = new int[2];
                c.reduce(new int[] {r, 1}, r == 1 ? red : null, ReduceOp.SUM, 1);
                if (r == 1) {
                    assertThat(red).containsExactly(3, 3);
                }
                var redL = new long[1];
                c.reduce(new long[] {r + 1}, redL, ReduceOp.PROD, 0);
                if (r == 0) {
                    assertThat(redL[0]).isEqualTo(6);
                }
                var redF = new float[1];
                c.reduce(new float[] {r}, redF, ReduceOp.MAX, 2);
                var redD = new double[1];
                c.reduce(new double[] {r}, redD, ReduceOp.MIN, 2);
                if (r == 2) {
                    assertThat(redF[0]).isEqualTo(2f);
                    assertThat(redD[0]).isEqualTo(0.0);
                }
                var scF = new float[1];
                c.scan(new float[] {r + 1}, scF, ReduceOp.SUM);
                assertThat(scF[0]).isEqualTo((r + 1) * (r + 2) / 2f);
                var scD = new double[1];
                c.scan(new double[] {r + 1}, scD, ReduceOp.PROD);
                assertThat(scD[0]).isEqualTo(r == 0 ? 1 : r == 1 ? 2 : 6);
                var scI = new int[1];
                c.scan(new int[] {r + 1}, scI, ReduceOp.MAX);
                assertThat(scI[0]).isEqualTo(r + 1);
                var exL = new long[1];
                c.exclusiveScan(new long[] {r + 1}, exL, ReduceOp.SUM);
                assertThat(exL[0]).isEqualTo(r * (r + 1) / 2);
                assertThatThrownBy(() -> c.scan(new int[1], null, ReduceOp.SUM))
                        .isInstanceOf(IllegalArgumentException.class).hasMessage("out must not be null");
                return null;
            });
        }
    }

    @Test
    void deterministicModeMatchesTheSequentialFoldBitForBit() {
        System.out.println("deterministic seed=" + SEED);
        for (int n : new int[] {1, 3, 4, 7}) {
            try (var cluster = start(n, config().collectiveDeterministic(true).build())) {
                cluster.run(c -> {
                    for (DataType type : List.of(DataType.F32, DataType.F16, DataType.F64, DataType.BF16)) {
                        long count = 1_001;
                        var in = Inputs.random(SEED + type.ordinal(), n, count, type);
                        var x = Inputs.copy(in[c.rank()]);
                        c.allReduce(x, type, count, ReduceOp.SUM);
                        same(x, ReferenceReduce.fold(in, 0, count, type, ReduceOp.SUM), "allReduce " + type);
                        var scan = Inputs.zeros(count, type);
                        c.scan(Inputs.copy(in[c.rank()]), scan, type, count, ReduceOp.SUM);
                        same(scan, ReferenceReduce.prefix(in, c.rank() + 1, 0, count, type, ReduceOp.SUM),
                                "scan " + type);
                    }
                    return null;
                });
            }
        }
    }

    @Test
    void everyRankGetsBitIdenticalAllReduceResults() {
        int n = 5;
        long count = 20_011;
        var in = Inputs.random(SEED, n, count, DataType.F32);
        for (String algorithm : List.of("ring", "recursive-doubling", "halving-doubling", "pipelined-ring")) {
            try (var cluster = start(n, config().set(ConfigKey.ALLREDUCE_ALGORITHM, algorithm).build())) {
                var results = cluster.onEachRank(c -> {
                    var x = Inputs.copy(in[c.rank()]);
                    c.allReduce(x, DataType.F32, count, ReduceOp.SUM);
                    return x.toArray(ValueLayout.JAVA_BYTE);
                });
                for (int r = 1; r < n; r++) {
                    assertThat(results.get(r)).as("%s rank %d", algorithm, r).isEqualTo(results.get(0));
                }
            }
        }
    }

    @Test
    void barrierKeepsWorkingAmidOtherTraffic() {
        try (var cluster = start(4, config().build())) {
            cluster.run(c -> {
                for (int i = 0; i < 50; i++) {
                    c.send((c.rank() + 1) % 4, i % 3, new int[] {i});
                    c.barrier();
                    var x = new int[1];
                    c.recv((c.rank() + 3) % 4, i % 3, x);
                    assertThat(x[0]).isEqualTo(i);
                }
                return null;
            });
        }
    }

    @Test
    void manyAsyncCollectivesInFlightCompleteCorrectly() {
        int n = 4;
        int ops = 64;
        try (var cluster = start(n, config().build())) {
            cluster.run(c -> {
                var handles = new ArrayList<CollectiveHandle>();
                var checks = new ArrayList<Runnable>();
                for (int i = 0; i < ops; i++) {
                    DataType type = TYPES.get(i % TYPES.size());
                    long count = 1 + i * 37L % 300;
                    long seed = SEED + i;
                    var in = Inputs.exact(seed, n, count, type, ReduceOp.SUM);
                    switch (i % 4) {
                        case 0 -> {
                            var x = Inputs.copy(in[c.rank()]);
                            handles.add(c.allReduceAsync(x, x, type, count, ReduceOp.SUM));
                            checks.add(() -> same(x, ReferenceReduce.fold(in, 0, count, type, ReduceOp.SUM),
                                    "async allReduce " + seed));
                        }
                        case 1 -> {
                            var x = c.rank() == 1 ? Inputs.copy(in[1]) : Inputs.zeros(count, type);
                            handles.add(c.broadcastAsync(x, type, count, 1));
                            checks.add(() -> same(x, in[1], "async broadcast " + seed));
                        }
                        case 2 -> {
                            var out = Inputs.zeros(count * n, type);
                            handles.add(c.allGatherAsync(Inputs.copy(in[c.rank()]), out, type, count));
                            checks.add(() -> same(out.asSlice(0, count * type.byteSize()), in[0], "async allGather"));
                        }
                        default -> handles.add(c.barrierAsync());
                    }
                }
                for (CollectiveHandle h : handles) {
                    h.await();
                    assertThat(h.isDone()).isTrue();
                }
                checks.forEach(Runnable::run);
                return null;
            });
        }
    }

    // ------------------------------------------------------------------------------------------------ communicators

    @Test
    void splitIntoEvenAndOddRunsP2pAndEveryCollectiveConcurrentlyOnParentAndChildren() {
        int n = 7;
        System.out.println("split even/odd seed=" + SEED);
        try (var cluster = start(n, config().build())) {
            cluster.run(c -> {
                // key = -rank: the children number their ranks in descending parent order
                Communicator sub = c.split(c.rank() % 2, -c.rank());
                int size = c.rank() % 2 == 0 ? (n + 1) / 2 : n / 2;
                assertThat(sub.worldSize()).isEqualTo(size);
                assertThat(sub.rank()).isEqualTo(size - 1 - c.rank() / 2);
                assertThat(sub.id()).isNotEqualTo(c.id());
                // which parent rank is each child rank: an allGather on the child
                var parents = new int[size];
                sub.allGather(new int[] {c.rank()}, parents);
                for (int j = 0; j < size; j++) {
                    assertThat(parents[j]).as("parent of child rank %d", j).isEqualTo(c.rank() % 2 + 2 * (size - 1 - j));
                }
                concurrently(() -> {
                    ringP2p(c, 11, 1000);
                    runAll(c, n, DataType.F32, ReduceOp.SUM, 13, SEED + 1);
                    ringP2p(c, 11, 2000);
                }, () -> {
                    ringP2p(sub, 11, 3000);
                    runAll(sub, size, DataType.I32, ReduceOp.MAX, 13, SEED + 2);
                    ringP2p(sub, 11, 4000);
                });
                sub.close();
                return null;
            });
        }
    }

    /** Every rank sends {@code base + rank} with {@code tag} to the next rank and checks what the previous sent. */
    private static void ringP2p(Communicator c, int tag, int base) {
        int n = c.worldSize();
        c.send((c.rank() + 1) % n, tag, new int[] {base + c.rank()});
        var x = new int[1];
        c.recv((c.rank() + n - 1) % n, tag, x);
        assertThat(x[0]).as("comm %d rank %d tag %d", c.id(), c.rank(), tag).isEqualTo(base + (c.rank() + n - 1) % n);
    }

    /** Runs {@code bodies} at once, each on a virtual thread, and rethrows the first failure. */
    static void concurrently(Runnable... bodies) throws InterruptedException {
        var failure = new java.util.concurrent.atomic.AtomicReference<Throwable>();
        var threads = new ArrayList<Thread>();
        for (Runnable body : bodies) {
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    body.run();
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        if (failure.get() instanceof RuntimeException e) {
            throw e;
        }
        if (failure.get() instanceof Error e) {
            throw e;
        }
    }

    @Test
    void sixtyFourAsyncOperationsMixedAcrossTwoCommunicatorsCompleteCorrectly() {
        int n = 4;
        int ops = 64;
        System.out.println("async two communicators seed=" + SEED);
        try (var cluster = start(n, config().build())) {
            cluster.run(c -> {
                Communicator dup = c.dup();
                var handles = new ArrayList<CollectiveHandle>();
                var checks = new ArrayList<Runnable>();
                for (int i = 0; i < ops; i++) {
                    asyncCase(i % 2 == 0 ? c : dup, i, SEED + i, handles, checks);
                }
                for (CollectiveHandle h : handles) {
                    h.await();
                    assertThat(h.isDone()).isTrue();
                }
                checks.forEach(Runnable::run);
                dup.close();
                c.barrier(); // the world is still open
                return null;
            });
        }
    }

    /** Starts async operation number {@code i} (every kind in turn) and adds its result check. */
    private static void asyncCase(Communicator c, int i, long seed, List<CollectiveHandle> handles,
                                  List<Runnable> checks) {
        int n = c.worldSize();
        int r = c.rank();
        DataType type = TYPES.get(i % TYPES.size());
        ReduceOp op = type.isFloatingPoint() ? ReduceOp.MAX : ReduceOp.BXOR;
        long count = 1 + i * 37L % 200;
        int w = type.byteSize();
        int root = i % n;
        String what = "async case " + i + " " + type + " count " + count + " comm " + c.id() + " seed " + seed;
        var in = Inputs.exact(seed, n, count, type, op);
        var big = Inputs.exact(seed + 1, n, count * n, type, op);
        switch (i % 12) {
            case 0 -> {
                var x = Inputs.copy(in[r]);
                handles.add(c.allReduceAsync(x, x, type, count, op));
                checks.add(() -> same(x, ReferenceReduce.fold(in, 0, count, type, op), what));
            }
            case 1 -> {
                var x = r == root ? Inputs.copy(in[root]) : Inputs.zeros(count, type);
                handles.add(c.broadcastAsync(x, type, count, root));
                checks.add(() -> same(x, in[root], what));
            }
            case 2 -> {
                var out = Inputs.zeros(count, type);
                handles.add(c.reduceAsync(Inputs.copy(in[r]), r == root ? out : null, type, count, op, root));
                checks.add(() -> {
                    if (r == root) {
                        same(out, ReferenceReduce.fold(in, 0, count, type, op), what);
                    }
                });
            }
            case 3 -> {
                var out = Inputs.zeros(count * n, type);
                handles.add(c.allGatherAsync(Inputs.copy(in[r]), out, type, count));
                checks.add(() -> same(out.asSlice((n - 1) * count * w), in[n - 1], what));
            }
            case 4 -> {
                var out = Inputs.zeros(count, type);
                handles.add(c.reduceScatterAsync(Inputs.copy(big[r]), out, type, count, op));
                checks.add(() -> same(out, ReferenceReduce.fold(big, r * count, count, type, op), what));
            }
            case 5 -> {
                var out = Inputs.zeros(count * n, type);
                handles.add(c.allToAllAsync(Inputs.copy(big[r]), out, type, count));
                checks.add(() -> {
                    for (int j = 0; j < n; j++) {
                        same(out.asSlice(j * count * w, count * w), big[j].asSlice(r * count * w, count * w), what);
                    }
                });
            }
            case 6 -> {
                var out = Inputs.zeros(count * n, type);
                handles.add(c.gatherAsync(Inputs.copy(in[r]), r == root ? out : null, type, count, root));
                checks.add(() -> {
                    if (r == root) {
                        same(out.asSlice(0, count * w), in[0], what);
                    }
                });
            }
            case 7 -> {
                var out = Inputs.zeros(count, type);
                handles.add(c.scatterAsync(r == root ? Inputs.copy(big[root]) : null, out, type, count, root));
                checks.add(() -> same(out, big[root].asSlice(r * count * w, count * w), what));
            }
            case 8 -> {
                var out = Inputs.zeros(count, type);
                handles.add(c.scanAsync(Inputs.copy(in[r]), out, type, count, op));
                checks.add(() -> same(out, ReferenceReduce.prefix(in, r + 1, 0, count, type, op), what));
            }
            case 9 -> {
                var out = Inputs.zeros(count, type);
                handles.add(c.exclusiveScanAsync(Inputs.copy(in[r]), out, type, count, op));
                checks.add(() -> same(out, ReferenceReduce.prefix(in, r, 0, count, type, op), what));
            }
            case 10 -> {
                long[] counts = new long[n];
                java.util.Arrays.setAll(counts, j -> Math.min(count, j + 1));
                long total = java.util.Arrays.stream(counts).sum();
                var vall = Inputs.zeros(total, type);
                var vgat = Inputs.zeros(total, type);
                var vsc = Inputs.zeros(counts[r], type);
                handles.add(c.allGatherVAsync(Inputs.copy(in[r]).asSlice(0, counts[r] * w), vall, type, counts));
                handles.add(c.gatherVAsync(Inputs.copy(in[r]).asSlice(0, counts[r] * w), r == root ? vgat : null,
                        type, counts, root));
                handles.add(c.scatterVAsync(r == root ? Inputs.copy(big[root]) : null, vsc, type, counts, root));
                checks.add(() -> {
                    long off = 0;
                    for (int j = 0; j < n; j++) {
                        same(vall.asSlice(off * w, counts[j] * w), in[j].asSlice(0, counts[j] * w), what);
                        if (r == root) {
                            same(vgat.asSlice(off * w, counts[j] * w), in[j].asSlice(0, counts[j] * w), what);
                        }
                        if (j == r) {
                            same(vsc, big[root].asSlice(off * w, counts[j] * w), what);
                        }
                        off += counts[j];
                    }
                });
            }
            default -> {
                // allToAllV: rank r sends min(count, j + 1) elements to rank j (from block j of big[r])
                long[] sends = new long[n];
                long[] recvs = new long[n];
                java.util.Arrays.setAll(sends, j -> Math.min(count, j + 1));
                java.util.Arrays.fill(recvs, Math.min(count, r + 1));
                var packed = Inputs.zeros(java.util.Arrays.stream(sends).sum(), type);
                long off = 0;
                for (int j = 0; j < n; j++) {
                    MemorySegment.copy(big[r], j * count * w, packed, off * w, sends[j] * w);
                    off += sends[j];
                }
                var out = Inputs.zeros(recvs[0] * n, type);
                handles.add(c.allToAllVAsync(packed, sends, out, recvs, type));
                handles.add(c.barrierAsync());
                checks.add(() -> {
                    for (int j = 0; j < n; j++) {
                        same(out.asSlice(j * recvs[0] * w, recvs[0] * w),
                                big[j].asSlice(r * count * w, recvs[0] * w), what);
                    }
                });
            }
        }
    }

    @Test
    void nestedSplitsGetDistinctIdsAndWork() {
        int n = 8;
        try (var cluster = start(n, config().build())) {
            var ids = cluster.onEachRank(c -> {
                Communicator half = c.split(c.rank() % 2, c.rank());
                Communicator quarter = half.split(half.rank() / 2, half.rank());
                // rank 0 opts out of a third split
                Communicator pairOrNone = quarter.split(c.rank() == 0 ? Communicator.UNDEFINED : 0, 0);
                assertThat(half.worldSize()).isEqualTo(4);
                assertThat(quarter.worldSize()).isEqualTo(2);
                assertThat(pairOrNone == null).isEqualTo(c.rank() == 0);
                // the quarters are {0, 2}, {4, 6}, {1, 3}, {5, 7}: check with a sum of world ranks
                var sum = new long[] {c.rank()};
                quarter.allReduce(sum, ReduceOp.SUM);
                int partner = c.rank() ^ 2;
                assertThat(sum[0]).isEqualTo(c.rank() + partner);
                ringP2p(quarter, 3, 500);
                ringP2p(half, 3, 600);
                if (pairOrNone != null) {
                    pairOrNone.barrier();
                    assertThat(pairOrNone.worldSize()).isEqualTo(c.rank() == 2 ? 1 : 2);
                    pairOrNone.close();
                }
                quarter.close();
                half.barrier(); // closing a child leaves its parent open
                half.close();
                c.barrier();
                return List.of(c.id(), half.id(), quarter.id());
            });
            // members agree on each id; distinct communicators have distinct ids
            var byComm = new java.util.HashMap<Integer, java.util.Set<Integer>>();
            ids.forEach((rank, list) -> {
                byComm.computeIfAbsent(list.get(1), k -> new java.util.TreeSet<>()).add(rank);
                byComm.computeIfAbsent(list.get(2), k -> new java.util.TreeSet<>()).add(rank);
            });
            assertThat(byComm.values()).containsExactlyInAnyOrder(java.util.Set.of(0, 2, 4, 6),
                    java.util.Set.of(1, 3, 5, 7), java.util.Set.of(0, 2), java.util.Set.of(4, 6),
                    java.util.Set.of(1, 3), java.util.Set.of(5, 7));
            assertThat(byComm).doesNotContainKey(0);
        }
    }

    @Test
    void aClosedSubCommunicatorNamesTheOperationAndLeavesTheWorldOpen() {
        try (var cluster = start(3, config().build())) {
            cluster.run(c -> {
                Communicator dup = c.dup();
                dup.close();
                assertThatThrownBy(() -> dup.allReduce(new float[2], ReduceOp.SUM))
                        .isInstanceOf(io.nexar.CommunicatorClosedException.class)
                        .hasMessageStartingWith("allReduce on rank " + c.rank() + " (world 3, comm " + dup.id());
                assertThatThrownBy(() -> dup.scatter(MemorySegment.ofArray(new int[3]), MemorySegment.ofArray(
                        new int[1]), DataType.I32, 1, 0)).hasMessageStartingWith("scatter on rank");
                assertThatThrownBy(dup::barrier).hasMessageStartingWith("barrier on rank");
                var x = new float[] {1};
                c.allReduce(x, ReduceOp.SUM);
                assertThat(x[0]).isEqualTo(3f);
                return null;
            });
        }
    }

    @Test
    void deterministicAsyncOperationsMatchTheSequentialFoldBitForBit() {
        int n = 5;
        System.out.println("deterministic async seed=" + SEED);
        try (var cluster = start(n, config().collectiveDeterministic(true).build())) {
            cluster.run(c -> {
                var handles = new ArrayList<CollectiveHandle>();
                var checks = new ArrayList<Runnable>();
                for (int i = 0; i < 16; i++) {
                    DataType type = List.of(DataType.F32, DataType.F64, DataType.F16, DataType.BF16).get(i % 4);
                    long count = 257 + 31L * i;
                    long seed = SEED + 100 + i;
                    var in = Inputs.random(seed, n, count, type);
                    var out = Inputs.zeros(count, type);
                    switch (i % 4) {
                        case 0 -> {
                            handles.add(c.allReduceAsync(Inputs.copy(in[c.rank()]), out, type, count, ReduceOp.SUM));
                            checks.add(() -> same(out, ReferenceReduce.fold(in, 0, count, type, ReduceOp.SUM),
                                    "allReduce seed " + seed));
                        }
                        case 1 -> {
                            handles.add(c.scanAsync(Inputs.copy(in[c.rank()]), out, type, count, ReduceOp.AVG));
                            checks.add(() -> same(out, ReferenceReduce.prefix(in, c.rank() + 1, 0, count, type,
                                    ReduceOp.AVG), "scan seed " + seed));
                        }
                        case 2 -> {
                            handles.add(c.reduceAsync(Inputs.copy(in[c.rank()]), out, type, count, ReduceOp.PROD, 2));
                            checks.add(() -> {
                                if (c.rank() == 2) {
                                    same(out, ReferenceReduce.fold(in, 0, count, type, ReduceOp.PROD),
                                            "reduce seed " + seed);
                                }
                            });
                        }
                        default -> {
                            handles.add(c.exclusiveScanAsync(Inputs.copy(in[c.rank()]), out, type, count,
                                    ReduceOp.SUM));
                            checks.add(() -> same(out, ReferenceReduce.prefix(in, c.rank(), 0, count, type,
                                    ReduceOp.SUM), "exclusiveScan seed " + seed));
                        }
                    }
                }
                handles.forEach(CollectiveHandle::await);
                checks.forEach(Runnable::run);
                return null;
            });
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"COUNT", "ROOT", "REDUCE_OP", "DATA_TYPE", "OPERATION"})
    void everyRankFailsFastWhenTheCallsDisagree(String field) {
        try (var cluster = start(3, config().collectiveTimeout(Duration.ofSeconds(10)).build())) {
            var results = cluster.onEachRank(c -> {
                boolean odd = c.rank() == 1;
                var data = Inputs.zeros(64, DataType.F64);
                long start = System.nanoTime();
                Throwable thrown = null;
                try {
                    switch (field) {
                        case "COUNT" -> c.allReduce(data, DataType.F32, odd ? 8 : 16, ReduceOp.SUM);
                        case "ROOT" -> c.broadcast(data, DataType.F32, 16, odd ? 2 : 0);
                        case "REDUCE_OP" -> c.allReduce(data, DataType.F32, 16, odd ? ReduceOp.MAX : ReduceOp.SUM);
                        case "DATA_TYPE" -> c.allReduce(data, odd ? DataType.I32 : DataType.F32, 16, ReduceOp.SUM);
                        default -> {
                            if (odd) {
                                c.barrier();
                            } else {
                                c.allReduce(data, DataType.F32, 16, ReduceOp.SUM);
                            }
                        }
                    }
                } catch (CollectiveMismatchException e) {
                    thrown = e;
                }
                long millis = (System.nanoTime() - start) / 1_000_000;
                // the communicator's collectives are broken from now on; point-to-point still works
                Throwable next = null;
                try {
                    c.barrier();
                } catch (CollectiveMismatchException e) {
                    next = e;
                }
                c.send((c.rank() + 1) % 3, 0, new int[] {c.rank()});
                c.recv((c.rank() + 2) % 3, 0, new int[1]);
                return new Object[] {thrown, millis, next};
            });
            results.forEach((rank, res) -> {
                // a broadcast root that finished first learns of the mismatch at its next collective
                Throwable e = res[0] != null ? (Throwable) res[0] : (Throwable) res[2];
                assertThat(e).as("rank %d", rank).isInstanceOf(CollectiveMismatchException.class);
                assertThat(((CollectiveMismatchException) e).field().name()).as("rank %d: %s", rank, e.getMessage())
                        .isEqualTo(field);
                assertThat((long) res[1]).as("rank %d failed within the timeout", rank).isLessThan(10_000);
                assertThat(res[2]).as("rank %d: later collectives fail", rank).isNotNull();
            });
        }
    }

    /**
     * Issue 14: a broadcast whose root differs on one rank (root 0 on rank 0, root 1 elsewhere) could return on every
     * rank with different data. With 2 ranks both think they are the root: each sends and returns at once, and the
     * chunk that proves the mismatch arrives after its operation ended and was dropped, so even the next collective
     * succeeded. Such a chunk now breaks the communicator and is reported to every member, so every rank fails by
     * the second collective after it at the latest. Fresh dups, as the reproduction; 2 ranks and 7.
     */
    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 0})
    void aRootMismatchIsNeverSilent(int worldOrDefault) {
        int world = worldOrDefault == 0 ? rootMismatchWorld() : worldOrDefault;
        try (var cluster = start(world, config().collectiveTimeout(Duration.ofSeconds(10)).build())) {
            var results = cluster.onEachRank(c -> {
                List<String> seen = new ArrayList<>();
                for (int trial = 0; trial < 10; trial++) {
                    try (Communicator dup = c.dup()) {
                        var data = Inputs.zeros(16, DataType.F32);
                        String caught = null;
                        for (int call = 0; call < 3 && caught == null; call++) {
                            try {
                                if (call == 0) {
                                    dup.broadcast(data, DataType.F32, 16, c.rank() == 0 ? 0 : 1);
                                } else {
                                    dup.barrier();
                                }
                            } catch (CollectiveMismatchException e) {
                                caught = "call " + call + ": " + e.field() + ": " + e.getMessage();
                            }
                        }
                        seen.add(caught);
                    }
                }
                return seen;
            });
            results.forEach((rank, seen) -> {
                for (int trial = 0; trial < seen.size(); trial++) {
                    assertThat(seen.get(trial)).as("rank %d trial %d: the mismatch must be reported", rank, trial)
                            .isNotNull();
                }
            });
        }
    }

    /**
     * Setting collective.verify: every rank checks the call before it runs, so a root (or any other field) that
     * differs fails every rank at that very call with CollectiveMismatchException naming the field, including the
     * rooted operations whose schedules never exchange a message that would show it (reduce, gather, scatter); the
     * communicator stays usable.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"broadcast", "reduce", "gather", "scatter", "allReduce-count"})
    void verifyModeFailsEveryRankAtTheMismatchedCall(String what) {
        int world = 4;
        try (var cluster = start(world, config().collectiveVerify(true)
                .collectiveTimeout(Duration.ofSeconds(10)).build())) {
            var results = cluster.onEachRank(c -> {
                var in = Inputs.zeros(16L * world, DataType.F32);
                var out = Inputs.zeros(16L * world, DataType.F32);
                int root = c.rank() == 0 ? 0 : 1;
                Throwable thrown = null;
                try {
                    switch (what) {
                        case "broadcast" -> c.broadcast(in, DataType.F32, 16, root);
                        case "reduce" -> c.reduce(in, out, DataType.F32, 16, ReduceOp.SUM, root);
                        case "gather" -> c.gather(in, out, DataType.F32, 16, root);
                        case "scatter" -> c.scatter(in, out, DataType.F32, 16, root);
                        default -> c.allReduce(in, out, DataType.F32, c.rank() == 2 ? 8 : 16, ReduceOp.SUM);
                    }
                } catch (CollectiveMismatchException e) {
                    thrown = e;
                }
                c.barrier(); // nothing ran: the communicator still works
                return thrown;
            });
            String field = what.equals("allReduce-count") ? "COUNT" : "ROOT";
            results.forEach((rank, e) -> {
                assertThat(e).as("rank %d", rank).isInstanceOf(CollectiveMismatchException.class);
                assertThat(((CollectiveMismatchException) e).field().name()).as("rank %d: %s", rank, e.getMessage())
                        .isEqualTo(field);
                assertThat(e.getMessage()).contains("collective.verify");
            });
        }
    }

    /**
     * One of 4 ranks never calls the barrier (it waits for the others to give up: an event, not a timer). After
     * {@code hang.report.after} each waiting rank asks the ranks it waits for what they do, follows their answers to
     * the absent rank, and its timeout error and {@code diagnostics()} carry a report that names that rank and what it
     * is doing.
     */
    @Test
    void aHangReportNamesTheRankThatNeverCalledAndWhatItDoes() {
        int world = 4;
        try (var cluster = start(world, config().hangReportAfter(Duration.ofMillis(500))
                .collectiveTimeout(Duration.ofSeconds(6)).build())) {
            var othersGaveUp = new java.util.concurrent.CountDownLatch(world - 1);
            var results = cluster.onEachRank(c -> {
                c.allReduce(new long[1], ReduceOp.SUM); // sequence number 0 on every rank
                if (c.rank() == world - 1) {
                    assertThat(othersGaveUp.await(60, TimeUnit.SECONDS)).isTrue();
                    return c.diagnostics();
                }
                try {
                    c.barrier();
                    return "the barrier returned";
                } catch (OperationTimeoutException | PeerFailedException e) { // the first to time out fails the rest
                    return e.getMessage() + "\n--\n" + c.diagnostics();
                } finally {
                    othersGaveUp.countDown();
                }
            });
            for (int r = 0; r < world - 1; r++) {
                assertThat(results.get(r)).as("rank %d", r)
                        .contains("last hang report: nexar hang report: world rank " + r
                                + " of 4 is in barrier #1 on communicator 0")
                        .contains("world rank 3: idle on communicator 0 since allReduce #0 ended")
                        .contains("flight recorder of communicator 0 (its last operations here, oldest first):")
                        .containsPattern("allReduce #0 \\(i64 sum, count 1\\): posted [0-9.]+ s ago, took [0-9.]+ [mu]?s,"
                                + " sent [0-9]+ B to ranks \\[[0-9, ]+\\], received from ranks \\[[0-9, ]+\\]: ok")
                        .containsPattern("barrier #1: posted .*: failed, (OperationTimeout|PeerFailed)");
            }
            assertThat(results.get(world - 1)).contains("idle on communicator 0 since allReduce #0 ended");
        }
    }

    @Test
    void timeoutNamesOperationRankStepAndAwaitedPeer() {
        try (var cluster = start(2, config().collectiveTimeout(Duration.ofMillis(300)).build())) {
            cluster.run(c -> {
                if (c.rank() == 0) {
                    assertThatThrownBy(() -> c.allReduce(new float[4], ReduceOp.SUM))
                            .isInstanceOf(OperationTimeoutException.class)
                            .hasMessageMatching("allReduce on rank 0 \\(world 2, comm 0, seq 0, peer 1\\) timed"
                                    + " out after 300ms"
                                    + " at step \\d+/\\d+ waiting for rank 1");
                }
                return null;
            });
        }
    }

    @Test
    void aFailedRankFailsTheOthersFast() {
        try (var cluster = start(3, config().collectiveTimeout(Duration.ofSeconds(30)).build())) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> cluster.run(c -> {
                if (c.rank() == 2) {
                    throw new IllegalStateException("boom on rank 2");
                }
                c.allReduce(new double[1000], ReduceOp.SUM);
                return null;
            })).isInstanceOfSatisfying(RankFailedException.class, e -> assertThat(e.getSuppressed())
                    .allSatisfy(s -> assertThat(s.getCause()).isInstanceOf(PeerFailedException.class)));
            assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(10));
        }
    }

    @Test
    void callerMistakesAreRejectedBeforeSending() {
        try (var cluster = start(4, config().build())) {
            Communicator c = cluster.communicator(0);
            assertThatThrownBy(() -> c.broadcast(new float[4], 5)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("root 5 is not in [0, 4)");
            assertThatThrownBy(() -> c.allReduce(MemorySegment.ofArray(new float[2]), DataType.F32, 3, ReduceOp.SUM))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("in holds 8 bytes but needs 12 (count 3 of F32)");
            assertThatThrownBy(() -> c.allReduce(new float[2], ReduceOp.BXOR))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("BXOR");
            assertThatThrownBy(() -> c.allGather(new float[2], new float[7]))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("out holds 28 bytes but needs 32 (count 2 x world 4 of F32)");
        }
    }

    /** Asserts equal bytes. */
    static void same(MemorySegment actual, MemorySegment expected, String what, Object... args) {
        byte[] a = actual.asSlice(0, expected.byteSize()).toArray(ValueLayout.JAVA_BYTE);
        byte[] e = expected.toArray(ValueLayout.JAVA_BYTE);
        if (!java.util.Arrays.equals(a, e)) {
            throw new AssertionError(String.format(what, args) + ": bytes differ (seed " + SEED + ")");
        }
    }
}
