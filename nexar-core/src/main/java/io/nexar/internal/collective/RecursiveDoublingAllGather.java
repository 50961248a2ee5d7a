package io.nexar.internal.collective;

/**
 * Recursive-doubling allgather (also allGatherV) for any size: log2 p exchange levels among the largest power of two
 * p <= n, where partners v and v ^ 2^k swap the windows of blocks they hold. Ranks p..n-1 first hand their block to
 * r-p and get the whole output back at the end; their blocks travel in a second round per level (the high window).
 *
 * <pre>
 * round 0:            r in [p, n) --b(r)--> r-p
 * level k (2 rounds): partner = v ^ 2^k; send blocks [w, w + 2^k) (low) and [p + w, ...) (high), receive theirs
 * last round:         r in [0, e) --whole output--> r+p
 * </pre>
 */
public final class RecursiveDoublingAllGather implements Algorithm {

    @Override
    public Schedule plan(int rank, int size, OpSpec spec) {
        var s = Schedule.builder(rank, size);
        int p = Integer.highestOneBit(size);
        int e = size - p;
        int levels = Integer.numberOfTrailingZeros(p);
        var all = new Slice(Buf.OUTPUT, 0, spec.blockOffset(size));
        s.at(0).copy(new Slice(Buf.INPUT, 0, spec.block(rank)), spec.blockSlice(Buf.OUTPUT, rank));
        int last = 1 + 2 * levels;
        if (rank >= p) {
            s.at(0).send(rank - p, spec.blockSlice(Buf.OUTPUT, rank));
            s.at(last).recvInto(rank - p, all);
            return s.build();
        }
        if (rank < e) {
            s.at(0).recvInto(rank + p, spec.blockSlice(Buf.OUTPUT, rank + p));
        }
        for (int k = 0; k < levels; k++) {
            int mask = 1 << k;
            int partner = rank ^ mask;
            int mine = rank & ~(mask - 1);
            int theirs = partner & ~(mask - 1);
            s.at(1 + 2 * k).send(partner, window(spec, mine, mask, 0, p))
                    .recvInto(partner, window(spec, theirs, mask, 0, p));
            if (e > 0) {
                s.at(2 + 2 * k).send(partner, window(spec, mine + p, mask, p, size))
                        .recvInto(partner, window(spec, theirs + p, mask, p, size));
            }
        }
        if (rank < e) {
            s.at(last).send(rank + p, all);
        }
        return s.build();
    }

    /** Blocks [from, from + n) clipped to [lo, hi), as one contiguous slice of the output (possibly empty). */
    private static Slice window(OpSpec spec, int from, int n, int lo, int hi) {
        int a = Math.max(from, lo);
        int b = Math.min(from + n, hi);
        if (a >= b) {
            return new Slice(Buf.OUTPUT, 0, 0);
        }
        long start = spec.blockOffset(a);
        return new Slice(Buf.OUTPUT, start, spec.blockOffset(b) - start);
    }
}
