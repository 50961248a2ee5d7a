package io.nexar.internal.collective;

import io.nexar.CollectiveMismatchException.Field;
import io.nexar.DataType;
import io.nexar.Operation;
import io.nexar.ReduceOp;
import io.nexar.internal.protocol.Message;
import java.util.List;

/**
 * What every rank must agree on for one collective call; every collective message carries it. Codes on the wire are
 * positions in the fixed lists below (plus one), never ordinals of the public enums.
 *
 * @param operation the collective
 * @param type the element type
 * @param op the reduce operator, or null
 * @param root the root, or -1; for allReduce, the {@linkplain #layoutOf buffer layout} instead (-1 for one dense
 *        buffer), which travels in the wire's root field: allReduce has no root, and a bucketed or compressed
 *        allReduce must not pair with a call of another layout that has the same count
 * @param count the element count all ranks pass, or -1 when counts legitimately differ (V forms)
 * @param caller the public operation this collective runs for: {@code operation} itself for a user's call, or the
 *        call that runs it internally ({@code grow}, {@code split}, {@code group}); its errors name it. Not on the
 *        wire: ranks compare the collective, not why they run it.
 */
public record Fingerprint(Operation operation, DataType type, ReduceOp op, int root, long count, Operation caller) {
    private static final List<Operation> OPERATIONS = List.of(Operation.ALL_REDUCE, Operation.BROADCAST,
            Operation.REDUCE, Operation.ALL_GATHER, Operation.REDUCE_SCATTER, Operation.ALL_TO_ALL, Operation.GATHER,
            Operation.SCATTER, Operation.SCAN, Operation.EXCLUSIVE_SCAN, Operation.BARRIER, Operation.SPLIT);
    private static final List<DataType> TYPES = List.of(DataType.F16, DataType.BF16, DataType.F32, DataType.F64,
            DataType.I8, DataType.U8, DataType.I32, DataType.U32, DataType.I64, DataType.U64);
    private static final List<ReduceOp> OPS = List.of(ReduceOp.SUM, ReduceOp.PROD, ReduceOp.MIN, ReduceOp.MAX,
            ReduceOp.AVG, ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR);

    /** A user's call: {@code caller} is {@code operation}. */
    public Fingerprint {
        if (caller == null) {
            caller = operation;
        }
    }

    /**
     * The fingerprint of a user's call of {@code operation}.
     *
     * @param operation the collective
     * @param type the element type
     * @param op the reduce operator, or null
     * @param root the root or layout, or -1
     * @param count the element count, or -1
     */
    public Fingerprint(Operation operation, DataType type, ReduceOp op, int root, long count) {
        this(operation, type, op, root, count, operation);
    }

    /** This collective run for {@code publicOperation} (this fingerprint itself if that is already its caller). */
    Fingerprint onBehalfOf(Operation publicOperation) {
        return publicOperation == caller ? this : new Fingerprint(operation, type, op, root, count, publicOperation);
    }

    /**
     * The collective in words for reports: {@code broadcast}, or {@code broadcast for grow} when it runs on behalf of
     * another public operation.
     */
    String label() {
        return caller == operation ? operation.displayName() : operation.displayName() + " for "
                + caller.displayName();
    }

    /** Layout of a plain allReduce: one buffer, dense. */
    public static final int DENSE = -1;
    private static final int BUCKETS = 1;
    private static final int TOP_K = 2;
    private static final int RANDOM_K = 3;
    private static final int DIGEST_BITS = 28;
    private static final int DIGEST_MASK = (1 << DIGEST_BITS) - 1;

    /**
     * The layout code of a bucketed allReduce of buckets of {@code counts} elements: a kind in the top bits and a
     * 28-bit digest of the bucket count and every bucket's size (two different layouts collide with probability
     * 2^-28; the code is a check, not a proof). One bucket is {@link #DENSE}: the same call as a plain allReduce.
     */
    public static int bucketLayout(long[] counts) {
        if (counts.length == 1) {
            return DENSE;
        }
        long h = mix(counts.length);
        for (long c : counts) {
            h = mix(h ^ c);
        }
        return BUCKETS << DIGEST_BITS | (int) (h & DIGEST_MASK);
    }

    /**
     * The layout code of a compressed allReduce: the compressor's kind and the number of elements {@code k} every
     * rank sends (which fixes the payload size); a random-k seed may differ between ranks.
     */
    public static int compressedLayout(boolean topK, long k) {
        return (topK ? TOP_K : RANDOM_K) << DIGEST_BITS | (int) (mix(mix(k) ^ (topK ? 1 : 2)) & DIGEST_MASK);
    }

    /** A layout code in words: {@code dense}, {@code buckets #0a1b2c3}, {@code top-k #...}, {@code random-k #...}. */
    static String describeLayout(long code) {
        if (code == DENSE) {
            return "one dense buffer";
        }
        String kind = switch ((int) (code >>> DIGEST_BITS)) {
            case BUCKETS -> "buckets";
            case TOP_K -> "top-k compressed";
            case RANDOM_K -> "random-k compressed";
            default -> "unknown layout";
        };
        return kind + " #" + String.format("%07x", code & DIGEST_MASK);
    }

    private static long mix(long z) { // SplitMix64's finaliser
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /** Wire code of the operation. */
    public int operationCode() {
        return OPERATIONS.indexOf(operation) + 1;
    }

    /** Wire code of the type. */
    public int typeCode() {
        return TYPES.indexOf(type) + 1;
    }

    /** Wire code of the operator, 0 for none. */
    public int opCode() {
        return op == null ? 0 : OPS.indexOf(op) + 1;
    }

    /**
     * The first field in which a message's fingerprint differs from this one, with both values in words
     * ({@code "count is 512 here but 1024 on rank 0"}), or null if they agree.
     */
    public Mismatch compare(Message.Collective m, int peer) {
        if (m.operation() != operationCode()) {
            return new Mismatch(Field.OPERATION, "this rank called " + label() + " but rank " + peer + " called "
                    + name(OPERATIONS, m.operation()));
        }
        if (m.count() != count) {
            return new Mismatch(Field.COUNT, "count is " + count + " here but " + m.count() + " on rank " + peer);
        }
        if (m.dataType() != typeCode()) {
            return new Mismatch(Field.DATA_TYPE, "type is " + type + " here but " + name(TYPES, m.dataType())
                    + " on rank " + peer);
        }
        if (m.reduceOp() != opCode()) {
            return new Mismatch(Field.REDUCE_OP, "op is " + op + " here but " + name(OPS, m.reduceOp()) + " on rank "
                    + peer);
        }
        if (m.root() != root && operation == Operation.ALL_REDUCE) {
            return new Mismatch(Field.LAYOUT, "layout is " + describeLayout(root) + " here but "
                    + describeLayout(m.root()) + " on rank " + peer);
        }
        if (m.root() != root) {
            return new Mismatch(Field.ROOT, "root is " + root + " here but " + m.root() + " on rank " + peer);
        }
        return null;
    }

    /** Longs per fingerprint in {@link #toLongs} (what {@code collective.verify} gathers from every rank). */
    static final int LONGS = 5;

    /** This fingerprint as {@link #LONGS} longs: operation, type and operator codes, root, count. */
    long[] toLongs() {
        return new long[] {operationCode(), typeCode(), opCode(), root, count};
    }

    /**
     * The first field in which fingerprint {@code a} (at {@code ai}) and {@code b} (at {@code bi}), as
     * {@link #toLongs}, differ, in the order {@link #compare} checks them; null if they agree.
     */
    static Field firstDifference(long[] a, int ai, long[] b, int bi) {
        int[] order = {0, 4, 1, 2, 3}; // operation, count, type, operator, root
        Field[] fields = {Field.OPERATION, Field.DATA_TYPE, Field.REDUCE_OP, Field.ROOT, Field.COUNT};
        for (int f : order) {
            if (a[ai + f] != b[bi + f]) {
                if (fields[f] == Field.ROOT && a[ai] == OPERATIONS.indexOf(Operation.ALL_REDUCE) + 1) {
                    return Field.LAYOUT;
                }
                return fields[f];
            }
        }
        return null;
    }

    /** Fingerprint {@code a} at {@code i} (as {@link #toLongs}) in words: {@code broadcast(count 16, F32, root 1)}. */
    static String describe(long[] a, int i) {
        String op = a[i + 2] == 0 ? "" : ", " + name(OPS, (int) a[i + 2]);
        boolean allReduce = a[i] == OPERATIONS.indexOf(Operation.ALL_REDUCE) + 1;
        String root = a[i + 3] < 0 ? "" : allReduce ? ", " + describeLayout(a[i + 3]) : ", root " + a[i + 3];
        String count = a[i + 4] < 0 ? "counts per rank" : "count " + a[i + 4];
        return name(OPERATIONS, (int) a[i]) + "(" + count + ", " + name(TYPES, (int) a[i + 1]) + op + root + ")";
    }

    private static String name(List<?> list, int code) {
        return code >= 1 && code <= list.size() ? list.get(code - 1).toString() : code == 0 ? "none" : "#" + code;
    }

    /** A difference: which field, in words. */
    public record Mismatch(Field field, String detail) {
    }
}
