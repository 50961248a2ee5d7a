package io.nexar.internal.collective;

/**
 * Pairwise all-to-all (also allToAllV): in step s = 1..n-1 rank r sends its block for r+s and receives the block
 * from r-s, so every rank talks to one peer at a time; its own block is copied locally.
 *
 * <pre>
 * step s:  r --in[r+s]--> r+s      r-s --in'[r]--> r (into out[r-s])
 * </pre>
 */
public final class PairwiseAllToAll implements Algorithm {

    @Override
    public Schedule plan(int rank, int size, OpSpec spec) {
        var s = Schedule.builder(rank, size);
        long[] sends = spec.counts();
        long[] recvs = spec.recvCounts();
        s.round().copy(block(Buf.INPUT, sends, spec.count(), rank), block(Buf.OUTPUT, recvs, spec.count(), rank));
        for (int step = 1; step < size; step++) {
            int to = (rank + step) % size;
            int from = Math.floorMod(rank - step, size);
            s.round().send(to, block(Buf.INPUT, sends, spec.count(), to))
                    .recvInto(from, block(Buf.OUTPUT, recvs, spec.count(), from));
        }
        return s.build();
    }

    private static Slice block(Buf buf, long[] counts, long count, int i) {
        if (counts == null) {
            return new Slice(buf, i * count, count);
        }
        long offset = 0;
        for (int j = 0; j < i; j++) {
            offset += counts[j];
        }
        return new Slice(buf, offset, counts[i]);
    }
}
