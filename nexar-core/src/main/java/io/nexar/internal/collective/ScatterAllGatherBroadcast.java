package io.nexar.internal.collective;

/**
 * Broadcast for large buffers (van de Geijn): the root sends block j of the buffer to rank j, then a ring allgather
 * completes every rank's copy. The root sends about twice the buffer in all instead of log2 n times, and every link
 * carries about (n-1)/n of it in the allgather.
 *
 * <pre>
 * round 0:        root --b(j)--> j  (for every j != root)
 * rounds 1..n-1:  ring allgather of the blocks: send b(r-s) to r+1, receive b(r-s-1) from r-1
 * </pre>
 */
public final class ScatterAllGatherBroadcast implements Algorithm {

    @Override
    public Schedule plan(int rank, int size, OpSpec spec) {
        var s = Schedule.builder(rank, size);
        var blocks = ChunkLayout.of(spec.count(), size);
        var scatter = s.round();
        if (rank == spec.root()) {
            for (int j = 0; j < size; j++) {
                if (j != rank) {
                    scatter.send(j, blocks.slice(Buf.OUTPUT, j));
                }
            }
        } else {
            scatter.recvInto(spec.root(), blocks.slice(Buf.OUTPUT, rank));
        }
        int next = (rank + 1) % size;
        int prev = (rank + size - 1) % size;
        for (int step = 0; step < size - 1; step++) {
            int recvBlock = Math.floorMod(rank - step - 1, size);
            var round = s.round().send(next, blocks.slice(Buf.OUTPUT, Math.floorMod(rank - step, size)));
            // the root already holds every block: it receives into scratch, leaving its buffer untouched
            round.recvInto(prev, rank == spec.root() ? new Slice(Buf.SCRATCH, 0, blocks.size(recvBlock))
                    : blocks.slice(Buf.OUTPUT, recvBlock));
        }
        if (rank == spec.root()) {
            s.scratch(blocks.size(0));
        }
        return s.build();
    }
}
