package io.nexar.internal.collective;

import io.nexar.ReduceOp;

/**
 * Ring allreduce: a reduce-scatter around the ring that leaves rank r owning block r, then an allgather of the
 * owned blocks. Every element is reduced by exactly one owner and then copied, so all ranks get bit-identical
 * results. Each rank sends 2(n-1) messages of about count/n elements: 2(n-1)/n of the buffer.
 *
 * <pre>
 * n = 4, rank r, blocks b0..b3           reduce-scatter step s: send b(r-s-1) to r+1, reduce b(r-s-2) from r-1
 *   r0: b0 b1 b2 b3                      allgather      step s: send b(r-s)   to r+1, copy   b(r-s-1) from r-1
 *   ring: 0 -> 1 -> 2 -> 3 -> 0
 * after reduce-scatter: r owns the reduced b(r); after allgather every rank holds every reduced block
 * </pre>
 *
 * <p>No copy of the input into the output comes first: the first step sends the input's block, and each reducing
 * receive writes output = input op received (every block a rank receives in the reduce-scatter is one it has not
 * touched yet), so the output is written once per element. The one block a rank never receives in the reduce-scatter
 * is overwritten by the allgather.
 *
 * <p>With a segment size ({@link #pipelined(long)}), each step's block is cut into segments of whole elements, one
 * round each, so a rank forwards segment k while segment k+1 is in flight and reductions overlap transfers.
 */
public final class RingAllReduce implements Algorithm {
    private final long segmentElements;

    private RingAllReduce(long segmentElements) {
        this.segmentElements = segmentElements;
    }

    /** The plain ring: one message per step. */
    public static RingAllReduce plain() {
        return new RingAllReduce(Long.MAX_VALUE);
    }

    /** The segmented ring: steps cut into segments of at most {@code segmentElements} (>= 1) elements. */
    public static RingAllReduce pipelined(long segmentElements) {
        return new RingAllReduce(Math.max(1, segmentElements));
    }

    @Override
    public Schedule plan(int rank, int size, OpSpec spec) {
        var s = Schedule.builder(rank, size);
        if (size == 1) {
            s.round().copy(new Slice(Buf.INPUT, 0, spec.count()), new Slice(Buf.OUTPUT, 0, spec.count()));
            return s.build();
        }
        var chunks = ChunkLayout.of(spec.count(), size);
        int next = (rank + 1) % size;
        int prev = (rank + size - 1) % size;
        long largest = chunks.size(0);
        long segments = Math.max(1, largest / segmentElements + (largest % segmentElements == 0 ? 0 : 1));
        for (int step = 0; step < size - 1; step++) {
            int sendBlock = Math.floorMod(rank - step - 1, size);
            int recvBlock = Math.floorMod(rank - step - 2, size);
            // step 0 sends its own input; every later block it sends is one it reduced the step before
            Slice send = chunks.slice(step == 0 ? Buf.INPUT : Buf.OUTPUT, sendBlock);
            segmented(s, segments, next, send, prev, chunks.slice(Buf.OUTPUT, recvBlock),
                    chunks.slice(Buf.INPUT, recvBlock));
        }
        if (spec.op() == ReduceOp.AVG) {
            s.round().average(chunks.slice(Buf.OUTPUT, rank), size);
        }
        for (int step = 0; step < size - 1; step++) {
            Slice send = chunks.slice(Buf.OUTPUT, Math.floorMod(rank - step, size));
            Slice recv = chunks.slice(Buf.OUTPUT, Math.floorMod(rank - step - 1, size));
            segmented(s, segments, next, send, prev, recv, null);
        }
        return s.build();
    }

    /**
     * One ring step as rounds of segments. The number of segments comes from the largest block, which every rank
     * computes alike, so sender and receiver always agree on it (docs/design.md W1).
     */
    private void segmented(Schedule.Builder s, long segments, int next, Slice send, int prev, Slice recv,
                           Slice operand) {
        for (long k = 0; k < segments; k++) {
            var round = s.round();
            round.send(next, part(send, k, segments));
            Slice dst = part(recv, k, segments);
            if (operand != null) {
                round.recvReduce(prev, dst, part(operand, k, segments));
            } else {
                round.recvInto(prev, dst);
            }
        }
    }

    /** Segment k of {@code segments} of a slice, in whole elements (a ChunkLayout of the slice). */
    private static Slice part(Slice slice, long k, long segments) {
        if (segments == 1) {
            return slice;
        }
        var layout = ChunkLayout.of(slice.count(), Math.toIntExact(segments));
        return layout.slice(slice.buf(), slice.offset(), (int) k);
    }
}
