package io.nexar.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.CollectiveHandle;
import io.nexar.Communicator;
import io.nexar.DataType;
import io.nexar.ReduceOp;
import io.nexar.testkit.Inputs;
import io.nexar.testkit.ReferenceReduce;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The part of the collective contract about many operations at once and about communicators: async operations in
 * flight, collectives amid point-to-point traffic, split and dup communicators running side by side, closed
 * communicators. {@link CollectiveContract} extends it, so every transport runs these cases.
 */
public abstract class CollectiveCommunicatorCases extends CollectiveReferenceCases {

    /** For {@link CollectiveContract}. */
    protected CollectiveCommunicatorCases() {
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
}
