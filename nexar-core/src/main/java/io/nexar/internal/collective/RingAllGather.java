package io.nexar.internal.collective;

/**
 * Ring allgather (also allGatherV): the output holds every rank's block in rank order; in step s rank r sends block
 * r-s to r+1 and receives block r-s-1 from r-1. n-1 steps; each rank sends (n-1)/n of the output.
 *
 * <pre>
 * step 0: r sends b(r)     step 1: r sends b(r-1)   ...   step n-2: r sends b(r+2)
 * </pre>
 */
public final class RingAllGather implements Algorithm {

    @Override
    public Schedule plan(int rank, int size, OpSpec spec) {
        var s = Schedule.builder(rank, size);
        s.round().copy(new Slice(Buf.INPUT, 0, spec.block(rank)), spec.blockSlice(Buf.OUTPUT, rank));
        int next = (rank + 1) % size;
        int prev = (rank + size - 1) % size;
        for (int step = 0; step < size - 1; step++) {
            s.round().send(next, spec.blockSlice(Buf.OUTPUT, Math.floorMod(rank - step, size)))
                    .recvInto(prev, spec.blockSlice(Buf.OUTPUT, Math.floorMod(rank - step - 1, size)));
        }
        return s.build();
    }
}
