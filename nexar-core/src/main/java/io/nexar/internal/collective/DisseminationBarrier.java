package io.nexar.internal.collective;

/**
 * Dissemination barrier: ceil(log2 n) rounds; in round k every rank sends an empty message to r + 2^k and waits for
 * one from r - 2^k (mod n). When the last round ends, every rank has heard, directly or indirectly, from every other.
 * Its messages are keyed by (communicator, sequence, round, sender) like every collective message, so heartbeats
 * or other traffic never confuse it (docs/design.md W4).
 *
 * <pre>
 * n = 5   round 0: r -> r+1   round 1: r -> r+2   round 2: r -> r+4
 * </pre>
 */
public final class DisseminationBarrier implements Algorithm {
    private static final Slice EMPTY = new Slice(Buf.SCRATCH, 0, 0);

    @Override
    public Schedule plan(int rank, int size, OpSpec spec) {
        var s = Schedule.builder(rank, size);
        for (int distance = 1; distance < size; distance <<= 1) {
            s.round().send((rank + distance) % size, EMPTY).recvInto(Math.floorMod(rank - distance, size), EMPTY);
        }
        return s.build();
    }
}
