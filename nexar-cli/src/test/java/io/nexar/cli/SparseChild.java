package io.nexar.cli;

import io.nexar.Communicator;
import io.nexar.Nexar;
import io.nexar.ReduceOp;
import java.util.Arrays;

/**
 * A worker for {@link SparseLaunchTest}, run by {@code nexar launch -n 6} with {@code NEXAR_TOPOLOGY=k-regular:2}
 * (a ring: rank r links to r - 1 and r + 1 only). Checks, printing {@code WRONG ...} and exiting 4 on any wrong value:
 *
 * <ol>
 *   <li>an allReduce (its schedule sends to non-neighbours, which relays carry);</li>
 *   <li>a point-to-point message from every rank to every other rank, neighbour or not;</li>
 *   <li>ranks 1 and 4 tell the others they are done and close their communicators first; the others then exchange
 *       messages across the cut those two ranks make in the ring (0 and 5 against 2 and 3), which only works if a
 *       rank that closed goes on relaying until every rank closed.</li>
 * </ol>
 * Prints {@code sparse ok} at the end.
 */
public final class SparseChild {
    private static final int WORDS = 4096;

    private SparseChild() {
    }

    public static void main(String[] args) {
        try (Communicator c = Nexar.join()) {
            int n = c.worldSize();
            int rank = c.rank();
            float[] x = new float[1024];
            Arrays.fill(x, rank + 1);
            c.allReduce(x, ReduceOp.SUM);
            for (float v : x) {
                check(v == n * (n + 1) / 2f, "allReduce gave " + v + ", expected " + n * (n + 1) / 2f);
            }
            for (int peer = 0; peer < n; peer++) {
                if (peer != rank) {
                    c.send(peer, 7, new long[] {rank * 100L + peer});
                }
            }
            for (int peer = 0; peer < n; peer++) {
                if (peer != rank) {
                    long[] got = new long[1];
                    c.recv(peer, 7, got);
                    check(got[0] == peer * 100L + rank, "rank " + peer + " sent " + got[0]);
                }
            }
            if (rank == 1 || rank == 4) {
                for (int peer : new int[] {0, 2, 3, 5}) {
                    c.send(peer, 8, new long[] {rank});
                }
                System.out.println("rank " + rank + " closes first");
            } else {
                long[] done = new long[1];
                c.recv(1, 8, done);
                c.recv(4, 8, done);
                boolean sideA = rank == 0 || rank == 5;
                int[] across = sideA ? new int[] {2, 3} : new int[] {0, 5};
                for (int peer : across) {
                    c.send(peer, 9, block(rank, peer));
                }
                for (int peer : across) {
                    long[] got = new long[WORDS];
                    c.recv(peer, 9, got);
                    check(Arrays.equals(got, block(peer, rank)), "rank " + peer + " sent a wrong block");
                }
                System.out.println("rank " + rank + " exchanged across the cut with ranks " + Arrays.toString(across));
            }
            System.out.println("rank " + rank + ": sparse ok");
        }
    }

    private static long[] block(int from, int to) {
        long[] b = new long[WORDS];
        for (int i = 0; i < WORDS; i++) {
            b[i] = from * 1_000_000L + to * 10_000L + i;
        }
        return b;
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            System.out.println("WRONG: " + what);
            System.exit(4);
        }
    }
}
