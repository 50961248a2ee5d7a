package io.nexar.testkit.contract;

import io.nexar.DataType;
import io.nexar.ReduceOp;
import java.util.ArrayList;
import java.util.List;

/**
 * The named cases of {@link CollectiveReferenceCases}' matrix tests: each case's display name says what it runs, and
 * its seed is in its failure message. Within one group (one cluster) each type and operator pair takes the next count
 * of {@link #counts} and alternates in place and out of place, so every count and both modes run for every world size
 * and every algorithm.
 */
final class CollectiveCases {
    /** The allReduce algorithms every transport runs the reference matrix with. */
    static final List<String> ALLREDUCE_ALGORITHMS =
            List.of("ring", "recursive-doubling", "halving-doubling", "pipelined-ring", "rank-order");
    /** The largest world size of the matrices. */
    static final int MAX_WORLD = 9;

    private CollectiveCases() {
    }

    /**
     * The operators defined for {@code type}: the bitwise ones only for integers.
     *
     * @param type the element type
     * @return its operators in declaration order
     */
    static List<ReduceOp> opsFor(DataType type) {
        return List.of(ReduceOp.values()).stream().filter(o -> !(o.isBitwise() && type.isFloatingPoint())).toList();
    }

    /**
     * The element counts of the matrices: none, one, fewer than the world size, a prime and a larger prime.
     *
     * @param world the world size
     * @return the five counts
     */
    static long[] counts(int world) {
        return new long[] {0, 1, Math.max(0, world - 1), 13, 1009};
    }

    /**
     * One allReduce against the sequential reference.
     *
     * @param algorithm the forced allReduce algorithm
     * @param world the world size
     * @param type the element type
     * @param op the operator
     * @param count the element count
     * @param inPlace whether the input buffer is also the output
     * @param seed the inputs' seed
     * @param lastOfGroup whether it is the last case on its cluster
     */
    record AllReduce(String algorithm, int world, DataType type, ReduceOp op, long count, boolean inPlace, long seed,
                     boolean lastOfGroup) implements SharedCluster.Case {
        @Override
        public Object group() {
            return List.of(algorithm, world);
        }

        @Override
        public String toString() {
            return algorithm + ", world " + world + ", " + type + " " + op + ", count " + count
                    + (inPlace ? ", in place" : ", out of place");
        }
    }

    /**
     * Every operation but allReduce (broadcast, reduce, the gathers and scatters, allToAll, the scans, the V forms)
     * on one type, operator and count against the sequential reference.
     *
     * @param broadcast the forced broadcast algorithm
     * @param allGather the forced allGather algorithm
     * @param world the world size
     * @param type the element type
     * @param op the operator of the reductions and scans
     * @param count the element count of each rank's block
     * @param seed the inputs' seed; the root is {@code seed % world}
     * @param lastOfGroup whether it is the last case on its cluster
     */
    record EveryOperation(String broadcast, String allGather, int world, DataType type, ReduceOp op, long count,
                          long seed, boolean lastOfGroup) implements SharedCluster.Case {
        @Override
        public Object group() {
            return List.of(broadcast, world);
        }

        @Override
        public String toString() {
            return "broadcast " + broadcast + ", allGather " + allGather + ", world " + world + ", " + type + " " + op
                    + ", count " + count + ", root " + seed % world;
        }
    }

    /**
     * A deterministic-mode allReduce and scan of random floating-point inputs, compared bit for bit.
     *
     * @param world the world size
     * @param type the floating-point type
     * @param seed the inputs' seed
     * @param lastOfGroup whether it is the last case on its cluster
     */
    record Deterministic(int world, DataType type, long seed, boolean lastOfGroup) implements SharedCluster.Case {
        @Override
        public Object group() {
            return world;
        }

        @Override
        public String toString() {
            return "world " + world + ", " + type + " sum, count 1001";
        }
    }

    /**
     * The allReduce matrix: every algorithm, world size 1 to {@link #MAX_WORLD}, type and operator.
     *
     * @param suiteSeed the suite's seed
     * @return the cases, grouped by algorithm and world size
     */
    static List<AllReduce> allReduce(long suiteSeed) {
        var cases = new ArrayList<AllReduce>();
        for (String algorithm : ALLREDUCE_ALGORITHMS) {
            for (int world = 1; world <= MAX_WORLD; world++) {
                int caseNo = 0;
                for (DataType type : DataType.values()) {
                    for (ReduceOp op : opsFor(type)) {
                        cases.add(new AllReduce(algorithm, world, type, op, counts(world)[caseNo % 5], caseNo % 2 == 0,
                                suiteSeed + caseNo * 31L, false));
                        caseNo++;
                    }
                }
                markLast(cases, c -> new AllReduce(c.algorithm, c.world, c.type, c.op, c.count, c.inPlace, c.seed,
                        true));
            }
        }
        return cases;
    }

    /**
     * The matrix of every other operation: world size 1 to {@link #MAX_WORLD}, three broadcast and allGather algorithm
     * pairs, four types and three operators.
     *
     * @param suiteSeed the suite's seed
     * @return the cases, grouped by algorithm pair and world size
     */
    static List<EveryOperation> everyOperation(long suiteSeed) {
        var cases = new ArrayList<EveryOperation>();
        for (int world = 1; world <= MAX_WORLD; world++) {
            for (String broadcast : List.of("binomial", "scatter-allgather", "pipelined-chain")) {
                String allGather = broadcast.equals("scatter-allgather") ? "recursive-doubling" : "ring";
                int caseNo = 0;
                for (DataType type : List.of(DataType.F32, DataType.BF16, DataType.I8, DataType.U64)) {
                    for (ReduceOp op : List.of(ReduceOp.SUM, ReduceOp.MAX, ReduceOp.AVG)) {
                        cases.add(new EveryOperation(broadcast, allGather, world, type, op, counts(world)[caseNo % 5],
                                suiteSeed + 7L * caseNo, false));
                        caseNo++;
                    }
                }
                markLast(cases, c -> new EveryOperation(c.broadcast, c.allGather, c.world, c.type, c.op, c.count,
                        c.seed, true));
            }
        }
        return cases;
    }

    /**
     * The deterministic-mode matrix: world sizes 1, 3, 4 and 7 and the four floating-point types.
     *
     * @param suiteSeed the suite's seed
     * @return the cases, grouped by world size
     */
    static List<Deterministic> deterministic(long suiteSeed) {
        var cases = new ArrayList<Deterministic>();
        for (int world : new int[] {1, 3, 4, 7}) {
            List<DataType> types = List.of(DataType.F32, DataType.F16, DataType.F64, DataType.BF16);
            for (DataType type : types) {
                cases.add(new Deterministic(world, type, suiteSeed + type.ordinal(), type == types.getLast()));
            }
        }
        return cases;
    }

    private static <T> void markLast(List<T> cases, java.util.function.UnaryOperator<T> asLast) {
        cases.set(cases.size() - 1, asLast.apply(cases.getLast()));
    }
}
