package io.nexar.testkit;

import io.nexar.Communicator;
import io.nexar.ConfigKey;
import io.nexar.DataType;
import io.nexar.NexarConfig;
import io.nexar.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Property tests over the in-process transport: for random (operation, type, operator, world size 1..9, count,
 * algorithm, in place or not, input seed) every rank's result equals the sequential reference
 * ({@link ReferenceReduce}) byte for byte. Counts are 0, 1, below the world size, or primes. jqwik draws the cases
 * from a seed it reports after each property (and reruns a failing seed first).
 */
class CollectivePropertyTest {
    private static final List<Integer> PRIMES = List.of(2, 3, 5, 7, 11, 13, 31, 97, 251, 1009);

    enum Kind { ALL_REDUCE, REDUCE, REDUCE_SCATTER, SCAN, EXCLUSIVE_SCAN, ALL_GATHER, BROADCAST, GATHER, SCATTER,
        ALL_TO_ALL }

    record Case(Kind kind, DataType type, ReduceOp op, int world, long count, String algorithm, boolean inPlace,
                long seed) {
    }

    @Property(tries = 1000)
    void everyCollectiveMatchesTheSequentialReference(@ForAll("cases") Case k) {
        var config = NexarConfig.builder().ignoreEnvironment().p2pTimeout(Duration.ofSeconds(20))
                .collectiveTimeout(Duration.ofSeconds(20)).chunkBytes(1024).set(ConfigKey.PIPELINE_SEGMENT_SIZE, "1KiB")
                .set(ConfigKey.ALLREDUCE_ALGORITHM, k.algorithm()).collectiveDeterministic(k.algorithm()
                        .equals("rank-order")).build();
        try (var cluster = LocalCluster.start(k.world(), config, Duration.ofSeconds(30))) {
            cluster.run(c -> {
                check(c, k);
                return null;
            });
        }
    }

    @Provide
    Arbitrary<Case> cases() {
        Arbitrary<Kind> kinds = Arbitraries.of(Kind.class);
        Arbitrary<DataType> types = Arbitraries.of(DataType.class);
        Arbitrary<Integer> worlds = Arbitraries.integers().between(1, 9);
        return Combinators.combine(kinds, types, worlds, Arbitraries.integers().between(0, 3),
                Arbitraries.integers().between(0, PRIMES.size() - 1), Arbitraries.of("auto", "ring",
                        "halving-doubling", "pipelined-ring", "rank-order"), Arbitraries.of(true, false),
                Arbitraries.longs()).as((kind, type, world, countKind, prime, algorithm, inPlace, seed) -> {
                    long count = switch (countKind) {
                        case 0 -> 0;
                        case 1 -> 1;
                        case 2 -> Math.max(0, world - 1);
                        default -> PRIMES.get(prime);
                    };
                    var ops = Arrays.stream(ReduceOp.values()).filter(o -> !(o.isBitwise() && type.isFloatingPoint()))
                            .toList();
                    ReduceOp op = ops.get((int) Math.floorMod(seed, (long) ops.size()));
                    return new Case(kind, type, op, world, count, algorithm, inPlace, seed);
                });
    }

    private static void check(Communicator c, Case k) {
        int n = k.world();
        int r = c.rank();
        long count = k.count();
        DataType type = k.type();
        ReduceOp op = k.op();
        int w = type.byteSize();
        int root = (int) Math.floorMod(k.seed(), (long) n);
        var in = Inputs.exact(k.seed(), n, count, type, op);
        var big = Inputs.exact(k.seed() + 1, n, count * n, type, op);
        switch (k.kind()) {
            case ALL_REDUCE -> {
                var x = Inputs.copy(in[r]);
                var out = k.inPlace() ? x : Inputs.zeros(count, type);
                c.allReduce(x, out, type, count, op);
                same(out, ReferenceReduce.fold(in, 0, count, type, op), k);
            }
            case REDUCE -> {
                var x = Inputs.copy(in[r]);
                var out = k.inPlace() ? x : Inputs.zeros(count, type);
                c.reduce(x, r == root ? out : null, type, count, op, root);
                if (r == root) {
                    same(out, ReferenceReduce.fold(in, 0, count, type, op), k);
                }
            }
            case REDUCE_SCATTER -> {
                var out = Inputs.zeros(count, type);
                c.reduceScatter(Inputs.copy(big[r]), out, type, count, op);
                same(out, ReferenceReduce.fold(big, r * count, count, type, op), k);
            }
            case SCAN, EXCLUSIVE_SCAN -> {
                var x = Inputs.copy(in[r]);
                var out = k.inPlace() ? x : Inputs.zeros(count, type);
                boolean exclusive = k.kind() == Kind.EXCLUSIVE_SCAN;
                if (exclusive) {
                    c.exclusiveScan(x, out, type, count, op);
                } else {
                    c.scan(x, out, type, count, op);
                }
                same(out, ReferenceReduce.prefix(in, exclusive ? r : r + 1, 0, count, type, op), k);
            }
            case ALL_GATHER -> {
                var out = Inputs.zeros(count * n, type);
                MemorySegment src = Inputs.copy(in[r]);
                if (k.inPlace()) { // in place: the input is block r of the output
                    MemorySegment.copy(src, 0, out, r * count * w, count * w);
                    src = out.asSlice(r * count * w, count * w);
                }
                c.allGather(src, out, type, count);
                for (int j = 0; j < n; j++) {
                    same(out.asSlice(j * count * w, count * w), in[j], k);
                }
            }
            case BROADCAST -> {
                var x = r == root ? Inputs.copy(in[root]) : Inputs.zeros(count, type);
                c.broadcast(x, type, count, root);
                same(x, in[root], k);
            }
            case GATHER -> {
                var out = Inputs.zeros(count * n, type);
                c.gather(Inputs.copy(in[r]), r == root ? out : null, type, count, root);
                if (r == root) {
                    for (int j = 0; j < n; j++) {
                        same(out.asSlice(j * count * w, count * w), in[j], k);
                    }
                }
            }
            case SCATTER -> {
                var out = Inputs.zeros(count, type);
                c.scatter(r == root ? Inputs.copy(big[root]) : null, out, type, count, root);
                same(out, big[root].asSlice(r * count * w, count * w), k);
            }
            case ALL_TO_ALL -> {
                var out = Inputs.zeros(count * n, type);
                c.allToAll(Inputs.copy(big[r]), out, type, count);
                for (int j = 0; j < n; j++) {
                    same(out.asSlice(j * count * w, count * w), big[j].asSlice(r * count * w, count * w), k);
                }
            }
        }
    }

    private static void same(MemorySegment actual, MemorySegment expected, Case k) {
        byte[] a = actual.asSlice(0, expected.byteSize()).toArray(ValueLayout.JAVA_BYTE);
        byte[] e = expected.toArray(ValueLayout.JAVA_BYTE);
        if (!Arrays.equals(a, e)) {
            throw new AssertionError(k + ": bytes differ");
        }
    }
}
