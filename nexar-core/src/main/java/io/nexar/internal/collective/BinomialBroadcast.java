package io.nexar.internal.collective;

/**
 * Binomial-tree broadcast: with v = (r - root) mod n, in round k the ranks v < 2^k that already hold the data send it
 * to v + 2^k. ceil(log2 n) rounds, each carrying the whole buffer; best for small buffers (latency-bound).
 *
 * <pre>
 * v:  0 --r0--> 1      0 --r1--> 2      0 --r2--> 4
 *                      1 --r1--> 3      1 --r2--> 5 ...
 * </pre>
 */
public final class BinomialBroadcast implements Algorithm {

    @Override
    public Schedule plan(int rank, int size, OpSpec spec) {
        var s = Schedule.builder(rank, size);
        var data = new Slice(Buf.OUTPUT, 0, spec.count());
        int v = Math.floorMod(rank - spec.root(), size);
        for (int mask = 1; mask < size; mask <<= 1) {
            var round = s.round();
            if (v < mask && v + mask < size) {
                round.send((v + mask + spec.root()) % size, data);
            } else if (v >= mask && v < 2 * mask) {
                round.recvInto((v - mask + spec.root()) % size, data);
            }
        }
        return s.build();
    }
}
