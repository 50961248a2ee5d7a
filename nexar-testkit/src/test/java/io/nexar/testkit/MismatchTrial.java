package io.nexar.testkit;

import io.nexar.CollectiveMismatchException.Field;
import io.nexar.Communicator;
import io.nexar.DataType;
import io.nexar.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * One seeded trial of the mismatch property tests ({@link VerifyMismatchPropertyTest},
 * {@link DefaultModeMismatchPropertyTest}): a rooted or unrooted collective every rank calls, and the one field
 * (operation, count, type, reduce operator or root) that rank {@code odd} gets wrong.
 *
 * @param seed the trial's seed (printed by a failing test)
 * @param op one of allReduce, reduce, broadcast, gather, scatter, allGather
 * @param odd the rank that gets {@code field} wrong
 * @param field the field it gets wrong
 * @param root the root of a rooted operation
 */
record MismatchTrial(long seed, String op, int odd, Field field, int root) {
    /** Elements of every call (the odd rank's COUNT mismatch passes one more). */
    static final long COUNT = 12;

    /** The trial of {@code seed} on a world of {@code world} ranks: an operation, then a field it has. */
    static MismatchTrial of(long seed, int world) {
        var rng = new Random(seed);
        List<String> ops = List.of("allReduce", "reduce", "broadcast", "gather", "scatter", "allGather");
        String op = ops.get(rng.nextInt(ops.size()));
        var fields = new ArrayList<>(List.of(Field.OPERATION, Field.COUNT, Field.DATA_TYPE));
        if (op.equals("allReduce") || op.equals("reduce")) {
            fields.add(Field.REDUCE_OP);
        }
        if (op.equals("reduce") || op.equals("broadcast") || op.equals("gather") || op.equals("scatter")) {
            fields.add(Field.ROOT);
        }
        return new MismatchTrial(seed, op, rng.nextInt(world), fields.get(rng.nextInt(fields.size())),
                rng.nextInt(world));
    }

    /** Rank {@code c.rank()}'s call of this trial: the odd rank's with its wrong field, everybody else's right. */
    void call(Communicator c) {
        boolean wrong = c.rank() == odd;
        String name = wrong && field == Field.OPERATION ? (op.equals("allGather") ? "allReduce" : "allGather") : op;
        long count = wrong && field == Field.COUNT ? COUNT + 1 : COUNT;
        DataType type = wrong && field == Field.DATA_TYPE ? DataType.I32 : DataType.F32;
        ReduceOp rop = wrong && field == Field.REDUCE_OP ? ReduceOp.MAX : ReduceOp.SUM;
        int r = wrong && field == Field.ROOT ? (root + 1) % c.worldSize() : root;
        long room = (COUNT + 1) * c.worldSize();
        MemorySegment in = Inputs.zeros(room, type);
        MemorySegment out = Inputs.zeros(room, type);
        switch (name) {
            case "allReduce" -> c.allReduce(in, out, type, count, rop);
            case "reduce" -> c.reduce(in, out, type, count, rop, r);
            case "broadcast" -> c.broadcast(in, type, count, r);
            case "gather" -> c.gather(in, out, type, count, r);
            case "scatter" -> c.scatter(in, out, type, count, r);
            default -> c.allGather(in, out, type, count);
        }
    }
}
