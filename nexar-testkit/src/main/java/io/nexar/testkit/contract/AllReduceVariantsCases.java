package io.nexar.testkit.contract;

import io.nexar.DataType;
import io.nexar.ReduceOp;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The named cases of {@link AllReduceVariantsContract}'s matrix tests: each case's display name says what it runs, and
 * its seed is in its failure message. Within one world size (one cluster) the type and operator pairs take the bucket
 * layouts, counts and call forms in turn, so each world size runs every layout, count and form.
 */
final class AllReduceVariantsCases {
    /** The bucket layouts: element counts of the buckets of one call. */
    private static final long[][] LAYOUTS = {{13, 0, 1009, 1}, {7}, {}, {1, 1, 1}, {300, 2}};
    /** The form of {@link Bucketed}'s array case. */
    static final String ARRAY_FORM = "float[][] {1, 2, 3}, {}, {rank}";

    private AllReduceVariantsCases() {
    }

    /**
     * One bucketed allReduce against the reference of each bucket.
     *
     * @param world the world size
     * @param type the element type
     * @param op the operator
     * @param layout the element count of each bucket
     * @param form {@code blocking}, {@code async} or {@link #ARRAY_FORM} (whose type, operator and layout are fixed)
     * @param seed the inputs' seed; bucket {@code b} uses {@code seed + b}
     * @param lastOfGroup whether it is the last case on its cluster
     */
    record Bucketed(int world, DataType type, ReduceOp op, long[] layout, String form, long seed, boolean lastOfGroup)
            implements SharedCluster.Case {
        @Override
        public Object group() {
            return world;
        }

        @Override
        public String toString() {
            return form.equals(ARRAY_FORM) ? "world " + world + ", " + form
                    : "world " + world + ", " + type + " " + op + ", buckets " + Arrays.toString(layout) + ", " + form;
        }
    }

    /**
     * One compressed allReduce that keeps every element, so its result is the exact reduction.
     *
     * @param world the world size
     * @param type the floating-point type
     * @param op SUM or AVG
     * @param count the element count
     * @param topK top-k with ratio 1 if true, else random-k of {@code count + 5} with the case's seed
     * @param seed the inputs' seed
     * @param lastOfGroup whether it is the last case on its cluster
     */
    record CompressedExact(int world, DataType type, ReduceOp op, long count, boolean topK, long seed,
                           boolean lastOfGroup) implements SharedCluster.Case {
        @Override
        public Object group() {
            return world;
        }

        @Override
        public String toString() {
            return "world " + world + ", " + type + " " + op + ", count " + count + ", "
                    + (topK ? "top-k ratio 1" : "random-k " + (count + 5));
        }
    }

    /**
     * The bucketed matrix: world sizes 1, 2, 3 and 5, six types with their operators, then the array form.
     *
     * @param suiteSeed the suite's seed
     * @return the cases, grouped by world size
     */
    static List<Bucketed> bucketed(long suiteSeed) {
        var cases = new ArrayList<Bucketed>();
        for (int world : new int[] {1, 2, 3, 5}) {
            int caseNo = 0;
            for (DataType type : List.of(DataType.F32, DataType.F64, DataType.BF16, DataType.I32, DataType.U64,
                    DataType.I8)) {
                for (ReduceOp op : type.isFloatingPoint() ? List.of(ReduceOp.SUM, ReduceOp.AVG, ReduceOp.MAX)
                        : List.of(ReduceOp.SUM, ReduceOp.BXOR)) {
                    cases.add(new Bucketed(world, type, op, LAYOUTS[caseNo % LAYOUTS.length],
                            caseNo % 3 == 2 ? "async" : "blocking", suiteSeed + 31L * caseNo, false));
                    caseNo++;
                }
            }
            cases.add(new Bucketed(world, DataType.F32, ReduceOp.SUM, new long[] {3, 0, 1}, ARRAY_FORM, suiteSeed,
                    true));
        }
        return cases;
    }

    /**
     * The exact compressed matrix: world sizes 1, 2 and 4, the four floating-point types, SUM and AVG.
     *
     * @param suiteSeed the suite's seed
     * @return the cases, grouped by world size
     */
    static List<CompressedExact> compressedExact(long suiteSeed) {
        var cases = new ArrayList<CompressedExact>();
        for (int world : new int[] {1, 2, 4}) {
            int caseNo = 0;
            for (DataType type : List.of(DataType.F32, DataType.F64, DataType.F16, DataType.BF16)) {
                for (ReduceOp op : List.of(ReduceOp.SUM, ReduceOp.AVG)) {
                    long count = new long[] {0, 1, 13, 1009}[caseNo % 4];
                    cases.add(new CompressedExact(world, type, op, count, caseNo % 2 == 1, suiteSeed + 17L * caseNo,
                            type == DataType.BF16 && op == ReduceOp.AVG));
                    caseNo++;
                }
            }
        }
        return cases;
    }
}
