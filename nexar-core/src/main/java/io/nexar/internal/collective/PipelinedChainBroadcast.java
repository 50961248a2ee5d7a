package io.nexar.internal.collective;

/**
 * Pipelined chain broadcast for large buffers: the ranks form a chain from the root (v = (r - root) mod n, v sends to
 * v + 1), the buffer is cut into segments, and each rank forwards segment j while it receives segment j + 1. Every
 * link carries the buffer once, the root sends it once and nobody receives what it already has, so the whole
 * operation moves (n-1) buffers over the network: {@link ScatterAllGatherBroadcast} moves about n, one of them to
 * the root, which already holds it. With C segments it takes C + n - 2 rounds, each one segment long.
 *
 * <pre>
 * round k:  v sends segment k - v to v + 1       (0 <= k - v < C, v < n - 1)
 *           v receives segment k - v + 1 from v - 1   (0 <= k - v + 1 < C, v > 0)
 * </pre>
 */
public final class PipelinedChainBroadcast implements Algorithm {
    /**
     * At most this many segments per rank in the chain: enough to keep the fill and drain short, few enough that the
     * wait and wake-up of each round stay small (64 MiB on 4 ranks, same session: 2 per rank 266-290 ms, 4 per rank
     * 222-260 ms, 8 per rank 289-370 ms).
     */
    static final int SEGMENTS_PER_RANK = 4;
    private final long segmentElements;

    /** @param segmentElements the smallest segment, in elements (>= 1); larger buffers get larger segments */
    public PipelinedChainBroadcast(long segmentElements) {
        this.segmentElements = Math.max(1, segmentElements);
    }

    @Override
    public Schedule plan(int rank, int size, OpSpec spec) {
        var s = Schedule.builder(rank, size);
        long count = spec.count();
        int v = Math.floorMod(rank - spec.root(), size);
        long bySize = count / segmentElements + (count % segmentElements == 0 ? 0 : 1);
        int segments = (int) Math.max(1, Math.min(bySize, (long) SEGMENTS_PER_RANK * size));
        var layout = ChunkLayout.of(count, segments);
        int next = (rank + 1) % size;
        int prev = (rank + size - 1) % size;
        int rounds = segments + size - 2;
        for (int k = 0; k < Math.max(rounds, 1); k++) {
            var round = s.round();
            int sendSeg = k - v;
            if (v < size - 1 && sendSeg >= 0 && sendSeg < segments) {
                round.send(next, layout.slice(Buf.OUTPUT, sendSeg));
            }
            int recvSeg = k - v + 1;
            if (v > 0 && recvSeg >= 0 && recvSeg < segments) {
                round.recvInto(prev, layout.slice(Buf.OUTPUT, recvSeg));
            }
        }
        return s.build();
    }
}
