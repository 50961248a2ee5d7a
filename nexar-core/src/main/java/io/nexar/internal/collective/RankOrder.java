package io.nexar.internal.collective;

import io.nexar.ReduceOp;
import java.util.function.IntFunction;

/**
 * The deterministic algorithms: every element is reduced by one owner as a left fold in rank order,
 * {@code ((x0 op x1) op x2) ... op x(n-1)}, the same order a sequential reference uses, whatever the message size
 * or chunking. The owner of block j receives every rank's block j directly (one round, n-1 messages), folds them in
 * rank order, and the result is distributed (allReduce: ring allgather; reduce: gather to the root).
 *
 * <pre>
 * round 0: send in[j] to j (all j != r), receive x_j[r] into scratch slot j; copy own in[r] into slot r
 * round 1: out[r] = slot0 op slot1 op ... op slot(n-1)     (left to right)
 * then:    distribute the owned blocks
 * </pre>
 */
public final class RankOrder {
    private RankOrder() {
    }

    /** Deterministic allreduce. */
    public static Algorithm allReduce() {
        return (rank, size, spec) -> {
            var s = Schedule.builder(rank, size);
            var blocks = ChunkLayout.of(spec.count(), size);
            Slice owned = blocks.slice(Buf.OUTPUT, rank);
            fold(s, rank, size, spec, j -> blocks.slice(Buf.INPUT, j), blocks.size(0), owned);
            int next = (rank + 1) % size;
            int prev = (rank + size - 1) % size;
            for (int step = 0; step < size - 1; step++) {
                s.round().send(next, blocks.slice(Buf.OUTPUT, Math.floorMod(rank - step, size)))
                        .recvInto(prev, blocks.slice(Buf.OUTPUT, Math.floorMod(rank - step - 1, size)));
            }
            return s.build();
        };
    }

    /** Deterministic reduce-scatter: rank r gets block r. */
    public static Algorithm reduceScatter() {
        return (rank, size, spec) -> {
            var s = Schedule.builder(rank, size);
            long c = spec.count();
            fold(s, rank, size, spec, j -> new Slice(Buf.INPUT, j * c, c), c, new Slice(Buf.OUTPUT, 0, c));
            return s.build();
        };
    }

    /** Deterministic reduce: fold blocks at their owners, then gather them to the root. */
    public static Algorithm reduce() {
        return (rank, size, spec) -> {
            var s = Schedule.builder(rank, size);
            var blocks = ChunkLayout.of(spec.count(), size);
            long slots = size * blocks.size(0);
            Slice owned = rank == spec.root() ? blocks.slice(Buf.OUTPUT, rank)
                    : new Slice(Buf.SCRATCH, slots, blocks.size(rank));
            s.scratch(slots + blocks.size(0));
            fold(s, rank, size, spec, j -> blocks.slice(Buf.INPUT, j), blocks.size(0), owned);
            var gather = s.round();
            if (rank == spec.root()) {
                for (int j = 0; j < size; j++) {
                    if (j != rank) {
                        gather.recvInto(j, blocks.slice(Buf.OUTPUT, j));
                    }
                }
            } else {
                gather.send(spec.root(), owned);
            }
            return s.build();
        };
    }

    /**
     * Rounds 0 and 1 (and the AVG division): {@code target} = left fold in rank order of every rank's
     * {@code input(rank)} block. Uses {@code size * slot} scratch elements.
     */
    static void fold(Schedule.Builder s, int rank, int size, OpSpec spec, IntFunction<Slice> input, long slot,
                     Slice target) {
        s.scratch(size * slot);
        var exchange = s.round();
        long mine = target.count();
        exchange.copy(input.apply(rank), new Slice(Buf.SCRATCH, rank * slot, mine));
        for (int j = 0; j < size; j++) {
            if (j != rank) {
                exchange.send(j, input.apply(j)).recvInto(j, new Slice(Buf.SCRATCH, j * slot, mine));
            }
        }
        var combine = s.round().copy(new Slice(Buf.SCRATCH, 0, mine), target);
        for (int j = 1; j < size; j++) {
            combine.reduce(new Slice(Buf.SCRATCH, j * slot, mine), target);
        }
        if (spec.op() == ReduceOp.AVG) {
            combine.average(target, size);
        }
    }
}
