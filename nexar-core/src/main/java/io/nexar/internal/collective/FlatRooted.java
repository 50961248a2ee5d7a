package io.nexar.internal.collective;

/**
 * Gather and scatter (and their V forms) in one round: the root receives from (or sends to) every rank directly.
 * O(n) messages at the root, each rank's own block moves once.
 *
 * <pre>
 * gather:  j --in--> root (block j of root's output)      scatter: root --block j--> j
 * </pre>
 */
public final class FlatRooted {
    private FlatRooted() {
    }

    /** Gather: the root's output holds every rank's input in rank order. */
    public static Algorithm gather() {
        return (rank, size, spec) -> {
            var s = Schedule.builder(rank, size);
            var round = s.round();
            if (rank == spec.root()) {
                round.copy(new Slice(Buf.INPUT, 0, spec.block(rank)), spec.blockSlice(Buf.OUTPUT, rank));
                for (int j = 0; j < size; j++) {
                    if (j != rank) {
                        round.recvInto(j, spec.blockSlice(Buf.OUTPUT, j));
                    }
                }
            } else {
                round.send(spec.root(), new Slice(Buf.INPUT, 0, spec.block(rank)));
            }
            return s.build();
        };
    }

    /** Scatter: rank j's output receives block j of the root's input. */
    public static Algorithm scatter() {
        return (rank, size, spec) -> {
            var s = Schedule.builder(rank, size);
            var round = s.round();
            if (rank == spec.root()) {
                round.copy(spec.blockSlice(Buf.INPUT, rank), new Slice(Buf.OUTPUT, 0, spec.block(rank)));
                for (int j = 0; j < size; j++) {
                    if (j != rank) {
                        round.send(j, spec.blockSlice(Buf.INPUT, j));
                    }
                }
            } else {
                round.recvInto(spec.root(), new Slice(Buf.OUTPUT, 0, spec.block(rank)));
            }
            return s.build();
        };
    }
}
