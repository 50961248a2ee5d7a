package io.nexar.internal.transport;

import io.nexar.ClusterFormationException;
import io.nexar.ErrorContext;
import io.nexar.Operation;
import io.nexar.internal.topology.NeighbourGraph;
import io.nexar.internal.topology.RoutingTable;
import io.nexar.internal.util.Deadline;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A growth of a sparse world ({@code grow()} with {@code topology=k-regular:K} or {@code hypercube}), for a
 * {@link RelayTransport}. The grown world's neighbour graph is the formation rule on the grown world size
 * ({@link NeighbourGraph#of}, the highest world rank plus one), with the world ranks that are not members (failed,
 * departed, never admitted) dead: every member and every newcomer computes it from the same inputs (the topology,
 * the members' world ranks, the newcomers' world ranks), so all agree on neighbours and routes without a word on the
 * wire.
 *
 * <p>Links: a member opens links to the newcomers that are its neighbours in the grown graph (it dials them, as the
 * lower rank); a newcomer connects only to its neighbours among the members and newcomers the seed listed. Links
 * between members are never opened after formation (a member knows only its neighbours' addresses), so a growth
 * whose graph links two members that hold no link is refused, the same way on every member: before rank 0 asks the
 * seed when no growth up to {@code world.max.size} could work ({@link #refusal}), else after the offer
 * ({@link #prepare}, which fails the growth on every member, so no member admits the newcomers). On {@code
 * k-regular:2} (a ring) every growth works: the ring's edges between members stay, the edge from the last member to
 * rank 0 gives way to the newcomers. A hypercube grows by doubling only (the new dimension's edges each join a member
 * to a newcomer). On {@code k-regular:K} with K of 3 or more the chords move with the world size, so most growths
 * would need links between members.
 *
 * <p>Switching: the routes change at {@link #commit}, on each member when it learns that every member admitted the
 * newcomers, so for a moment some members route over the grown graph and others over the old one. Both graphs' links
 * are open (a link the grown graph drops, such as 5-0 of a ring of 6 growing to 7, stays open but carries nothing new),
 * and an arriving envelope is checked against the routes in use and, failing that, against the grown ones before the
 * switch ({@link RelayTransport#pending}) or the old ones after it ({@link RelayTransport#previous}). Each route is a
 * shortest path of one of the two graphs, so the hop limit bounds a frame that changes graph on its way.
 *
 * <p>Stateless: the state is the relay's, changed under its monitor.
 */
final class RelayGrowth {
    private static final Logger LOG = LoggerFactory.getLogger(RelayTransport.class);
    /** At most this many growth sizes are tried by {@link #refusal}. */
    private static final int SIZES_TRIED = 64;

    private RelayGrowth() {
    }

    /**
     * The routes of {@code self} in a world of {@code graph} whose members are {@code worldRanks}.
     *
     * @param graph the world's graph
     * @param self this rank
     * @param worldRanks the members' world ranks
     * @return the routes, every other rank dead
     */
    static RoutingTable routes(NeighbourGraph graph, int self, int[] worldRanks) {
        boolean[] member = new boolean[graph.worldSize()];
        for (int w : worldRanks) {
            if (w < member.length) {
                member[w] = true;
            }
        }
        return RoutingTable.of(graph, self, r -> !member[r]);
    }

    /** The close tree of {@code routes}' graph as its rank sees it, the ranks the routes know dead already down. */
    static CloseTree closeTree(RoutingTable routes) {
        CloseTree tree = CloseTree.of(routes.graph(), routes.self());
        for (int r : routes.deadRanks()) {
            tree.onPeerDown(r);
        }
        return tree;
    }

    /**
     * Why no growth of the world of {@code members} (routed by {@code routes}) up to {@code maxSize} ranks can work,
     * or null if one can. Tried: each number of newcomers the room allows (at most {@value #SIZES_TRIED}), taking the
     * world ranks after the highest one known; the seed's ranks may lie higher (a failed admission uses ranks up), so
     * {@link #prepare} checks again with the ranks it got.
     */
    static String refusal(RoutingTable routes, int[] members, int maxSize) {
        NeighbourGraph now = routes.graph();
        int room = Math.min(SIZES_TRIED, maxSize - members.length);
        if (room <= 0) {
            return null; // grow() admits nobody and says so
        }
        String first = null;
        for (int added = 1; added <= room; added++) {
            int[] newcomers = new int[added];
            Arrays.setAll(newcomers, i -> now.worldSize() + i);
            String why = problem(now, members, newcomers, now.worldSize() + added);
            if (why == null) {
                return null;
            }
            if (first == null) {
                first = why;
            }
        }
        return "grow() cannot admit workers into this world of topology=" + now.topology() + ": for every size up to"
                + " world.max.size " + maxSize + ", " + first + "; start the job at its final size, or use"
                + " topology=full-mesh or k-regular:2 for a world that grows";
    }

    /**
     * What makes the grown world of {@code members} and {@code newcomers} unusable, or null if nothing: its graph
     * cannot be built (a hypercube on a size that is not a power of two), links two members that hold no link to
     * each other, or leaves a member or newcomer with no path to the others.
     */
    private static String problem(NeighbourGraph now, int[] members, int[] newcomers, int size) {
        NeighbourGraph next;
        try {
            next = NeighbourGraph.of(now.topology(), size);
        } catch (ClusterFormationException e) {
            return "topology=" + now.topology() + " cannot be built on " + size + " ranks (a hypercube grows by"
                    + " doubling only)";
        }
        var missing = new ArrayList<String>();
        for (int a : members) {
            for (int b : next.neighbours(a)) {
                if (b > a && b < now.worldSize() && Arrays.stream(members).anyMatch(m -> m == b)
                        && !now.adjacent(a, b)) {
                    missing.add(a + "-" + b);
                }
            }
        }
        if (!missing.isEmpty()) {
            return "the graph of " + size + " ranks links members that hold no link to each other (world ranks "
                    + String.join(", ", missing.subList(0, Math.min(8, missing.size())))
                    + (missing.size() > 8 ? ", ..." : "") + "), and links between running members are opened at"
                    + " formation only";
        }
        int[] all = Arrays.copyOf(members, members.length + newcomers.length);
        System.arraycopy(newcomers, 0, all, members.length, newcomers.length);
        RoutingTable from = routes(next, all[0], all);
        int[] cut = from.cutOff();
        if (cut.length > 0) {
            return "the graph of " + size + " ranks without the ranks that are gone leaves world ranks "
                    + Arrays.toString(cut) + " with no path to world rank " + all[0];
        }
        return null;
    }

    /**
     * {@link RelayTransport#admit(List, int[], Deadline)}: computes the grown world, refuses it if it cannot work
     * (the same way on every member), keeps its routes pending and links this rank to its new neighbours.
     */
    static void prepare(RelayTransport t, Transport links, List<Newcomer> newcomers, int[] members,
                        Deadline deadline) {
        NeighbourGraph now = t.table.graph();
        int size = now.worldSize();
        int[] added = newcomers.stream().mapToInt(Newcomer::worldRank).toArray();
        for (int w : added) {
            size = Math.max(size, w + 1);
        }
        String why = problem(now, members, added, size);
        if (why != null) {
            throw new ClusterFormationException(new ErrorContext(Operation.GROW, t.rank(), t.worldSize(), -1, -1, -1,
                    -1), "failed: world ranks " + Arrays.toString(added) + " cannot join this world of topology="
                    + now.topology() + ": " + why);
        }
        NeighbourGraph next = NeighbourGraph.of(now.topology(), size);
        int[] all = Arrays.copyOf(members, members.length + added.length);
        System.arraycopy(added, 0, all, members.length, added.length);
        synchronized (t) {
            RoutingTable grown = routes(next, t.rank(), all);
            for (int d : t.table.deadRanks()) { // what this rank learnt dead since stays dead
                grown = grown.withDead(d);
            }
            t.pending = grown; // arriving envelopes may follow the grown routes from now on
        }
        t.forwarder.growLinksUsed(size);
        List<Newcomer> linked = newcomers.stream().filter(n -> next.adjacent(t.rank(), n.worldRank())).toList();
        LOG.debug("grow: rank {} links to world ranks {} of the newcomers {} (topology={} on {} ranks)", t.rank(),
                linked.stream().map(Newcomer::worldRank).toList(), Arrays.toString(added), now.topology(), size);
        links.admitLinks(linked, size, deadline);
    }

    /** {@link RelayTransport#admitted}: the pending routes become the routes, and the close tree theirs. */
    static void commit(RelayTransport t) {
        synchronized (t) {
            RoutingTable grown = t.pending;
            if (grown == null) {
                return;
            }
            for (int d : t.table.deadRanks()) {
                grown = grown.withDead(d);
            }
            t.previous = t.table;
            t.table = grown;
            t.pending = null;
            t.closeTree = closeTree(grown);
            t.notifyAll();
        }
    }

    /**
     * {@link RelayTransport#exclude} of a newcomer of a growth that failed: the routes stay the old world's, and
     * the newcomer's link (if this rank opened one) is closed.
     */
    static void notAdmitted(RelayTransport t, int peer, String why) {
        synchronized (t) {
            t.pending = null;
        }
        t.excludeLink(peer, why);
    }
}
