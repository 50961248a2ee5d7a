package io.nexar.internal.topology;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;

/**
 * One rank's routes over a {@link NeighbourGraph}: for each destination, the neighbour a message takes next. Immutable;
 * a rank learnt dead gives a new table ({@link #withDead}) that routes around it.
 *
 * <p>The rule, the same on every rank: the next hop from x towards d is the lowest-numbered live neighbour n of x
 * with {@code dist(n, d) = dist(x, d) - 1}, distances taken over the live ranks. Every hop brings the message one
 * closer, so a message takes a shortest path, never loops, and needs at most {@code dist(source, d)} hops; and
 * because each rank applies the rule to its own table, ranks that agree on the dead set route identically.
 *
 * <p>On a graph with bridges ({@link NeighbourGraph#bridged}: links that a recovery opened over the holes of the
 * ranks it removed) the rule is applied to the formation graph's links first, and to the bridged graph only for a
 * destination that the formation graph's live links no longer reach from this rank. A destination reached over the
 * formation links from some rank is reached that way from every rank on its shortest path there, so a route never
 * turns back; and a recovery that adds bridges leaves every route that did not need one as it was, so ranks that
 * switch to the rebuilt routes at different moments still route alike.
 */
public final class RoutingTable {
    private final NeighbourGraph graph;
    private final int self;
    private final boolean[] dead;
    private final boolean anyDead;
    /** Next hop per destination with every rank alive; -1 for self. */
    private final int[] primary;
    /** Distances to a destination over the live ranks, by destination, computed when first needed. */
    private final Map<Integer, int[]> liveDistances = new ConcurrentHashMap<>();
    /** Like {@link #liveDistances} over the formation graph's links alone (a graph with bridges only). */
    private final Map<Integer, int[]> formationDistances = new ConcurrentHashMap<>();

    private RoutingTable(NeighbourGraph graph, int self, boolean[] dead) {
        this.graph = graph;
        this.self = self;
        this.dead = dead;
        boolean any = false;
        for (boolean d : dead) {
            any |= d;
        }
        this.anyDead = any;
        int n = graph.worldSize();
        this.primary = new int[n];
        int[] mine = graph.neighbours(self);
        for (int d = 0; d < n; d++) {
            primary[d] = d == self ? -1 : firstCloser(mine, d);
        }
    }

    /**
     * The routes of {@code self} with every rank alive.
     *
     * @param graph the neighbour graph
     * @param self the rank whose table this is
     * @return the table
     */
    public static RoutingTable of(NeighbourGraph graph, int self) {
        return new RoutingTable(graph, self, new boolean[graph.worldSize()]);
    }

    /**
     * The routes of {@code self} with the ranks {@code dead} accepts dead (the world ranks a grown world does not
     * hold: failed, departed or never admitted).
     *
     * @param graph the neighbour graph
     * @param self the rank whose table this is
     * @param dead which world ranks are dead
     * @return the table
     */
    public static RoutingTable of(NeighbourGraph graph, int self, java.util.function.IntPredicate dead) {
        boolean[] marks = new boolean[graph.worldSize()];
        for (int r = 0; r < marks.length; r++) {
            marks[r] = r != self && dead.test(r);
        }
        return new RoutingTable(graph, self, marks);
    }

    /**
     * This table with one more rank dead: routes that went through it take another neighbour.
     *
     * @param rank the dead rank
     * @return a new table (this one if the rank was already dead)
     */
    public RoutingTable withDead(int rank) {
        if (dead[rank]) {
            return this;
        }
        boolean[] more = dead.clone();
        more[rank] = true;
        return new RoutingTable(graph, self, more);
    }

    /**
     * Whether this table routes around a rank.
     *
     * @param rank a world rank
     * @return true if it was marked dead ({@link #withDead})
     */
    public boolean isDead(int rank) {
        return dead[rank];
    }

    /** {@return the graph the routes run over} */
    public NeighbourGraph graph() {
        return graph;
    }

    /** {@return the rank whose routes these are} */
    public int self() {
        return self;
    }

    /**
     * The neighbour a message for {@code destination} goes to next, over live ranks.
     *
     * @param destination a rank other than {@link #self()}
     * @return the next hop (the destination itself when it is a live neighbour), or -1 if no live path exists
     */
    public int nextHop(int destination) {
        if (!anyDead) {
            return primary[destination];
        }
        if (dead[destination]) {
            return -1;
        }
        if (graph.hasBridges()) { // the formation graph's links first: a bridge only where they no longer reach
            int[] formed = formationDistances.computeIfAbsent(destination,
                    d -> graph.formation().distancesFrom(d, dead));
            int here = formed[self];
            if (here > 0) {
                for (int n : graph.formation().neighbours(self)) {
                    if (!dead[n] && formed[n] == here - 1) {
                        return n;
                    }
                }
            }
        }
        int[] toDest = liveDistances.computeIfAbsent(destination, d -> graph.distancesFrom(d, dead));
        int here = toDest[self];
        if (here <= 0) {
            return -1;
        }
        for (int n : graph.neighbours(self)) {
            if (!dead[n] && toDest[n] == here - 1) {
                return n;
            }
        }
        return -1; // unreachable: a live neighbour one closer always exists when here > 0
    }

    /**
     * The live ranks this rank can no longer reach: every path to them over the graph (its bridges included) passes
     * a rank this table knows dead (say both neighbours of a rank on a ring). Until a recovery bridges the hole
     * ({@link NeighbourGraph#bridged}), which it can only do between ranks that still reach each other, they are cut
     * off from this rank.
     *
     * @return the cut-off ranks, ascending; empty while every live rank is reachable
     */
    public int[] cutOff() {
        if (!anyDead) {
            return new int[0];
        }
        int[] dist = graph.distancesFrom(self, dead);
        return java.util.stream.IntStream.range(0, dist.length).filter(r -> !dead[r] && dist[r] < 0).toArray();
    }

    /**
     * The ranks this table knows dead.
     *
     * @return their world ranks, ascending
     */
    public int[] deadRanks() {
        return java.util.stream.IntStream.range(0, dead.length).filter(r -> dead[r]).toArray();
    }

    /**
     * The next hop with every rank alive, whatever this table knows of dead ranks.
     *
     * @param destination a rank other than {@link #self()}
     * @return the next hop on a shortest path of the whole graph
     */
    public int primaryNextHop(int destination) {
        return primary[destination];
    }

    /**
     * Whether this rank, as a relay or destination, accepts a frame that neighbour {@code from} says comes from
     * {@code origin} after {@code hops} links (this one included). It does if {@code from} is the origin; or if
     * {@code from} lies on a shortest path from the origin to this rank (over the whole graph, or over the ranks this
     * table knows alive), so a legitimate route could have handed it to {@code from}; or, for a frame on a detour
     * around a dead rank (more links than the shortest path from the origin to this rank), if {@code from} is within
     * {@code hops - 1} links of the origin. The ranks along a detour may not know yet of the death that caused it,
     * so detours cannot be checked against the dead set; docs/protocol.md 4.8 says what that leaves open.
     *
     * @param origin the rank the frame claims as its source
     * @param from the neighbour it arrived from
     * @param hops the links the frame says it took, this one included
     * @return true if the claim is plausible
     */
    public boolean mayForward(int origin, int from, int hops) {
        if (origin == from) {
            return true;
        }
        if (origin == self || !graph.adjacent(from, self)) {
            return false;
        }
        int toFrom = graph.distance(origin, from);
        if (toFrom < graph.distance(origin, self)) {
            return true;
        }
        if (hops > graph.distance(origin, self) && toFrom <= hops - 1) {
            return true; // a detour: longer than the shortest path here, and from reachable in the links claimed
        }
        if (!anyDead) {
            return false;
        }
        int[] fromOrigin = graph.distancesFrom(origin, dead);
        return fromOrigin[from] >= 0 && fromOrigin[self] >= 0 && fromOrigin[from] < fromOrigin[self];
    }

    private int firstCloser(int[] mine, int destination) {
        int here = graph.distance(self, destination);
        for (int n : mine) {
            if (graph.distance(n, destination) == here - 1) {
                return n;
            }
        }
        throw new IllegalStateException("no neighbour of rank " + self + " is closer to rank " + destination
                + " in " + graph.topology() + " on " + graph.worldSize() + " ranks: " + Arrays.toString(mine));
    }
}
