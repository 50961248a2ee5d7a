package io.nexar.internal.topology;

import io.nexar.Topology;
import java.util.Locale;

/**
 * What a topology costs, without a network (the simulator's report behind the table in docs/collectives.md): per rank
 * the connections held, the hops of a shortest path, the hops of the partners of the ring and recursive-doubling
 * schedules, and the relay load of an all-to-all.
 *
 * @param topology the shape
 * @param worldSize the number of ranks
 * @param connections connections per rank (the most any rank holds)
 * @param diameter the most hops between two ranks
 * @param meanHops the mean hops over all ordered pairs of distinct ranks
 * @param ringHops the most hops from rank r to rank r+1 (one step of ring allreduce, allgather, reduce-scatter)
 * @param doublingHops the most hops from r to r XOR 2^i over all i (recursive doubling), or -1 unless the world size
 *                     is a power of two
 * @param relayLoad in an all-to-all of one message per ordered pair, the most messages one rank forwards for others
 */
public record TopologyReport(Topology topology, int worldSize, int connections, int diameter, double meanHops,
                             int ringHops, int doublingHops, long relayLoad) {

    /**
     * Computes the report.
     *
     * @param topology the shape
     * @param worldSize the number of ranks, at least 2
     * @return the report
     * @throws io.nexar.ClusterFormationException if the shape cannot be built on that many ranks
     */
    public static TopologyReport of(Topology topology, int worldSize) {
        NeighbourGraph g = NeighbourGraph.of(topology, worldSize);
        int n = worldSize;
        int connections = 0;
        for (int r = 0; r < n; r++) {
            connections = Math.max(connections, g.neighbours(r).length);
        }
        int diameter = 0;
        long sum = 0;
        // vertex-transitive shapes: the distances from rank 0 are those from every rank
        for (int d = 1; d < n; d++) {
            int h = g.distance(0, d);
            diameter = Math.max(diameter, h);
            sum += h;
        }
        int ring = 0;
        for (int r = 0; r < n; r++) {
            ring = Math.max(ring, g.distance(r, (r + 1) % n));
        }
        int doubling = -1;
        if (Integer.bitCount(n) == 1) {
            doubling = 0;
            for (int bit = 1; bit < n; bit <<= 1) {
                for (int r = 0; r < n; r++) {
                    doubling = Math.max(doubling, g.distance(r, r ^ bit));
                }
            }
        }
        return new TopologyReport(topology, n, connections, diameter, n > 1 ? (double) sum / (n - 1) : 0, ring,
                doubling, relayLoad(g));
    }

    /**
     * For every destination d the routes towards d form a tree (each rank's next hop is its parent); a rank forwards
     * one message for each rank below it in that tree.
     */
    private static long relayLoad(NeighbourGraph g) {
        int n = g.worldSize();
        if (g.fullMesh()) {
            return 0;
        }
        int[][] neighbours = new int[n][];
        for (int r = 0; r < n; r++) {
            neighbours[r] = g.neighbours(r);
        }
        long[] load = new long[n];
        int[] size = new int[n];
        int[] order = new int[n];
        int[] bucketStart = new int[n + 1];
        int[] dist = new int[n];
        for (int d = 0; d < n; d++) {
            java.util.Arrays.fill(bucketStart, 0);
            for (int x = 0; x < n; x++) {
                dist[x] = g.distance(x, d);
                bucketStart[dist[x] + 1]++;
            }
            for (int i = 1; i <= n; i++) {
                bucketStart[i] += bucketStart[i - 1];
            }
            int[] fill = bucketStart.clone();
            for (int x = 0; x < n; x++) {
                order[fill[dist[x]]++] = x;
            }
            java.util.Arrays.fill(size, 1);
            for (int i = n - 1; i > 0; i--) { // farthest first; order[0] is d
                int x = order[i];
                int parent = -1;
                for (int y : neighbours[x]) {
                    if (dist[y] == dist[x] - 1) {
                        parent = y;
                        break;
                    }
                }
                size[parent] += size[x];
                if (parent != d) {
                    load[parent] += size[x];
                }
            }
        }
        long max = 0;
        for (long l : load) {
            max = Math.max(max, l);
        }
        return max;
    }

    /** {@return this report as a row of a Markdown table, in the column order of {@link #HEADER}} */
    public String markdownRow() {
        return String.format(Locale.ROOT, "| %s | %d | %d | %d | %.2f | %d | %s | %d |", topology, worldSize,
                connections, diameter, meanHops, ringHops, doublingHops < 0 ? "-" : Integer.toString(doublingHops),
                relayLoad);
    }

    /** The header of {@link #markdownRow()}'s table. */
    public static final String HEADER = "| Topology | Ranks | Connections per rank | Diameter (hops) | Mean hops |"
            + " Ring step hops | Recursive-doubling hops | All-to-all relay load |\n"
            + "|---|---:|---:|---:|---:|---:|---:|---:|";
}
