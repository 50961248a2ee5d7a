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
 * @param root the root, or -1
 * @param count the element count all ranks pass, or -1 when counts legitimately differ (V forms)
 */
public record Fingerprint(Operation operation, DataType type, ReduceOp op, int root, long count) {
    private static final List<Operation> OPERATIONS = List.of(Operation.ALL_REDUCE, Operation.BROADCAST,
            Operation.REDUCE, Operation.ALL_GATHER, Operation.REDUCE_SCATTER, Operation.ALL_TO_ALL, Operation.GATHER,
            Operation.SCATTER, Operation.SCAN, Operation.EXCLUSIVE_SCAN, Operation.BARRIER, Operation.SPLIT);
    private static final List<DataType> TYPES = List.of(DataType.F16, DataType.BF16, DataType.F32, DataType.F64,
            DataType.I8, DataType.U8, DataType.I32, DataType.U32, DataType.I64, DataType.U64);
    private static final List<ReduceOp> OPS = List.of(ReduceOp.SUM, ReduceOp.PROD, ReduceOp.MIN, ReduceOp.MAX,
            ReduceOp.AVG, ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR);

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
            return new Mismatch(Field.OPERATION, "this rank called " + operation + " but rank " + peer + " called "
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
                return fields[f];
            }
        }
        return null;
    }

    /** Fingerprint {@code a} at {@code i} (as {@link #toLongs}) in words: {@code broadcast(count 16, F32, root 1)}. */
    static String describe(long[] a, int i) {
        String op = a[i + 2] == 0 ? "" : ", " + name(OPS, (int) a[i + 2]);
        String root = a[i + 3] < 0 ? "" : ", root " + a[i + 3];
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
