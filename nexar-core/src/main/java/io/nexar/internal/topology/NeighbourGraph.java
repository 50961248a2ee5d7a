package io.nexar.internal.topology;

import io.nexar.ClusterFormationException;
import io.nexar.ErrorContext;
import io.nexar.Operation;
import io.nexar.Topology;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * Which ranks of a world connect directly, for a {@link Topology} and a world size. Immutable and pure: every rank
 * computes the same graph from the same two inputs, so neighbours and routes agree without a word on the wire.
 *
 * <p>Both sparse shapes are vertex-transitive, so one breadth-first search from rank 0 gives every distance:
 * a {@code k-regular:K} graph is circulant (rank r is adjacent to r &#177; d mod N for each offset d), so
 * {@code dist(a, b) = dist(0, (b - a) mod N)}; in a hypercube {@code dist(a, b) = popcount(a XOR b)}.
 *
 * <p>The offsets of {@code k-regular:K}: {@code K/2} pairs, the first 1 (the ring, so the graph is connected for
 * every N), the i-th near {@code N^(i/(K/2))} (chords that cut the diameter to about {@code (K/2) N^(2/K)}), each
 * distinct and below N/2; for odd K on an even N also the antipode N/2. On an odd N an odd K cannot be met by any
 * graph (N K must be even), so each rank gets K-1 neighbours; with K at least N-1 the graph is the full mesh.
 */
public final class NeighbourGraph {
    private final Topology topology;
    private final int worldSize;
    /** Circulant offsets (k-regular), each in [1, N/2]; empty for the other kinds. */
    private final int[] offsets;
    /** Distance from rank 0 to each rank; null for the full mesh (always 1). */
    private final int[] fromZero;
    /** Links added by {@link #bridged} per rank, ascending; null when there are none (the formation graph). */
    private final int[][] bridges;
    /** Distances from each source over the bridged graph, computed when first needed (null without bridges). */
    private final java.util.Map<Integer, int[]> bridgedDistances;

    /** The graph without the bridges; null for a formation graph. */
    private final NeighbourGraph formation;

    private NeighbourGraph(Topology topology, int worldSize, int[] offsets) {
        this(topology, worldSize, offsets, null, null);
    }

    private NeighbourGraph(Topology topology, int worldSize, int[] offsets, int[][] bridges,
                           NeighbourGraph formation) {
        this.formation = formation;
        this.topology = topology;
        this.worldSize = worldSize;
        this.offsets = offsets;
        this.bridges = bridges;
        this.bridgedDistances = bridges == null ? null : new java.util.concurrent.ConcurrentHashMap<>();
        this.fromZero = topology.kind() == Topology.Kind.FULL_MESH ? null : bfs(0);
    }

    /**
     * The graph of {@code topology} on {@code worldSize} ranks.
     *
     * @param topology the shape
     * @param worldSize the number of ranks, at least 1
     * @return the graph
     * @throws ClusterFormationException if the shape cannot be built on that many ranks (a hypercube on a world
     *         size that is not a power of two)
     * @throws IllegalArgumentException if worldSize is less than 1
     */
    public static NeighbourGraph of(Topology topology, int worldSize) {
        if (worldSize < 1) {
            throw new IllegalArgumentException("worldSize " + worldSize + " is not in [1, " + Integer.MAX_VALUE + "]");
        }
        return switch (topology.kind()) {
            case FULL_MESH -> new NeighbourGraph(topology, worldSize, new int[0]);
            case HYPERCUBE -> {
                if (Integer.bitCount(worldSize) != 1) {
                    throw new ClusterFormationException(ErrorContext.of(Operation.FORMATION), "failed: topology="
                            + "hypercube needs a world size that is a power of two, but this world has " + worldSize
                            + " ranks (use k-regular:K or full-mesh, or start " + Integer.highestOneBit(worldSize)
                            + " or " + Integer.highestOneBit(worldSize) * 2 + " ranks)");
                }
                yield new NeighbourGraph(topology, worldSize, new int[0]);
            }
            case K_REGULAR -> new NeighbourGraph(topology, worldSize, offsets(worldSize, topology.degree()));
        };
    }

    /** The circulant offsets of k-regular:k on n ranks (see the class comment). */
    static int[] offsets(int n, int k) {
        if (n == 1) {
            return new int[0];
        }
        if (k >= n - 1) {
            int[] all = new int[n / 2];
            Arrays.setAll(all, i -> i + 1);
            return all;
        }
        int half = (n - 1) / 2; // offsets 1..half give two distinct neighbours each
        int pairs = k / 2;
        boolean antipode = n % 2 == 0 && k % 2 == 1;
        int[] out = new int[pairs + (antipode ? 1 : 0)];
        boolean[] used = new boolean[half + 1];
        for (int i = 0; i < pairs; i++) {
            int want = i == 0 ? 1 : (int) Math.min(half, Math.round(Math.pow(n, (double) i / pairs)));
            while (want <= half && used[want]) {
                want++;
            }
            if (want > half) { // crowded at the top: take the smallest free offset
                want = 1;
                while (used[want]) {
                    want++;
                }
            }
            used[want] = true;
            out[i] = want;
        }
        if (antipode) {
            out[pairs] = n / 2;
        }
        Arrays.sort(out);
        return out;
    }

    /** {@return the shape} */
    public Topology topology() {
        return topology;
    }

    /** {@return the number of ranks} */
    public int worldSize() {
        return worldSize;
    }

    /** {@return whether every rank is adjacent to every other (no relays)} */
    public boolean fullMesh() {
        return topology.kind() == Topology.Kind.FULL_MESH;
    }

    /**
     * The neighbours of a rank.
     *
     * @param rank a rank of the world
     * @return its neighbours, ascending, without itself
     */
    public int[] neighbours(int rank) {
        int[] formed = formationNeighbours(rank);
        if (bridges == null || bridges[rank].length == 0) {
            return formed;
        }
        return java.util.stream.IntStream.concat(Arrays.stream(formed), Arrays.stream(bridges[rank])).sorted()
                .distinct().toArray();
    }

    /** The neighbours of {@code rank} by the formation rule alone, ascending. */
    private int[] formationNeighbours(int rank) {
        int n = worldSize;
        return switch (topology.kind()) {
            case FULL_MESH -> {
                int[] all = new int[n - 1];
                for (int p = 0, i = 0; p < n; p++) {
                    if (p != rank) {
                        all[i++] = p;
                    }
                }
                yield all;
            }
            case HYPERCUBE -> {
                int[] out = new int[Integer.numberOfTrailingZeros(n)];
                for (int i = 0; i < out.length; i++) {
                    out[i] = rank ^ (1 << i);
                }
                Arrays.sort(out);
                yield out;
            }
            case K_REGULAR -> {
                int[] out = new int[2 * offsets.length];
                int count = 0;
                for (int d : offsets) {
                    out[count++] = (rank + d) % n;
                    out[count++] = (rank - d + n) % n;
                }
                yield Arrays.stream(out, 0, count).sorted().distinct().toArray();
            }
        };
    }

    /**
     * Whether two ranks connect directly.
     *
     * @param a a rank
     * @param b another rank
     * @return true if a and b are distinct neighbours
     */
    public boolean adjacent(int a, int b) {
        return a != b && distance(a, b) == 1;
    }

    /** {@return whether this graph has links beyond the formation rule's ({@link #bridged})} */
    public boolean hasBridges() {
        return bridges != null;
    }

    /** {@return the graph of the formation rule on this graph's world size, without the links {@link #bridged} added} */
    public NeighbourGraph formation() {
        return formation == null ? this : formation;
    }

    /**
     * The formation graph of this graph's topology and world size ({@link #formation}) with the holes that the ranks
     * {@code gone} leave bridged: for each set of gone ranks that are linked to each other (a connected component of
     * them in the formation graph), the live ranks linked to that set, in ascending order, are linked one to the next
     * (a chain). Every live rank that reached another through the hole still reaches it, over live ranks only: on a
     * ring ({@code k-regular:2}) the survivors form a ring again, a ring of 6 without rank 1 gains the link 0-2.
     * Deterministic: every rank that agrees on {@code gone} computes the same graph. Without gone ranks, or on a full
     * mesh, the formation graph itself.
     *
     * @param gone which world ranks are gone (failed, departed, excluded)
     * @return the bridged graph
     */
    public NeighbourGraph bridged(java.util.function.IntPredicate gone) {
        NeighbourGraph base = formation();
        if (fullMesh()) {
            return base;
        }
        var extra = new java.util.ArrayList<java.util.TreeSet<Integer>>();
        for (int r = 0; r < worldSize; r++) {
            extra.add(new java.util.TreeSet<>());
        }
        boolean[] seen = new boolean[worldSize];
        boolean any = false;
        for (int start = 0; start < worldSize; start++) {
            if (seen[start] || !gone.test(start)) {
                continue;
            }
            var live = new java.util.TreeSet<Integer>(); // the live ranks linked to this component of gone ranks
            var queue = new ArrayDeque<Integer>();
            queue.add(start);
            seen[start] = true;
            while (!queue.isEmpty()) {
                for (int y : base.neighbours(queue.poll())) {
                    if (!gone.test(y)) {
                        live.add(y);
                    } else if (!seen[y]) {
                        seen[y] = true;
                        queue.add(y);
                    }
                }
            }
            Integer prev = null;
            for (int x : live) {
                if (prev != null && !base.adjacent(prev, x)) {
                    extra.get(prev).add(x);
                    extra.get(x).add(prev);
                    any = true;
                }
                prev = x;
            }
        }
        if (!any) {
            return base;
        }
        int[][] links = new int[worldSize][];
        for (int r = 0; r < worldSize; r++) {
            links[r] = extra.get(r).stream().mapToInt(Integer::intValue).toArray();
        }
        return new NeighbourGraph(topology, worldSize, offsets, links, base);
    }

    /**
     * The number of hops of a shortest path, with every rank alive.
     *
     * @param a a rank
     * @param b a rank
     * @return 0 if equal, 1 for neighbours, and so on
     */
    public int distance(int a, int b) {
        if (a == b) {
            return 0;
        }
        if (bridges != null) { // no longer vertex-transitive: a search per source, kept
            return bridgedDistances.computeIfAbsent(a, s -> distancesFrom(s, null))[b];
        }
        return switch (topology.kind()) {
            case FULL_MESH -> 1;
            case HYPERCUBE -> Integer.bitCount(a ^ b);
            case K_REGULAR -> fromZero[Math.floorMod(b - a, worldSize)];
        };
    }

    /**
     * Distances from {@code source} to every rank, walking only ranks that are not dead.
     *
     * @param source where the search starts (searched even if marked dead)
     * @param dead ranks to walk around, indexed by rank; null for none
     * @return the hops to each rank, or -1 for ranks that cannot be reached
     */
    public int[] distancesFrom(int source, boolean[] dead) {
        int[] dist = new int[worldSize];
        Arrays.fill(dist, -1);
        dist[source] = 0;
        var queue = new ArrayDeque<Integer>();
        queue.add(source);
        while (!queue.isEmpty()) {
            int x = queue.poll();
            for (int y : neighbours(x)) {
                if (dist[y] < 0 && (dead == null || !dead[y])) {
                    dist[y] = dist[x] + 1;
                    queue.add(y);
                }
            }
        }
        return dist;
    }

    private int[] bfs(int source) {
        return distancesFrom(source, null);
    }
}
