package io.nexar.internal.transport;

import io.nexar.internal.topology.NeighbourGraph;
import java.util.ArrayList;
import java.util.List;

/**
 * The close of a sparse world (docs/protocol.md 4.10, docs/failure-model.md "Sparse topologies"). On a full mesh a
 * rank that closes its world communicator may leave at once: every other rank reaches every other directly. On a
 * sparse topology other ranks may still need it as a relay: a rank that finished its part while its neighbour still
 * waits for a frame relayed through it would drop that frame by leaving (the timeouts seen across processes in
 * issue 15). So a closing rank keeps relaying until every rank has closed, learnt over a tree of neighbour links
 * rooted at rank 0 (each rank's parent is its first next hop towards rank 0, the same on every rank):
 *
 * <pre>
 *   up:   a rank that closed, once each of its children said CLOSED, says CLOSED to its parent
 *   down: rank 0, once all its children said CLOSED, says RELEASE to them; each rank passes RELEASE to its children
 * </pre>
 *
 * <p>A rank has closed only after its operations ended, and an operation ends only when the frames it waits for
 * arrived; so once every rank closed, no frame that anyone waits for is still on its way, and relays may stop. The
 * frames of the close itself travel on neighbour links only, so they need no relay. A child that goes down counts as
 * closed; a parent that goes down releases its subtree (a failed world does not wait for a tree it cannot finish);
 * the owner's deadline bounds the wait (a rank that never closes).
 *
 * <p>Thread-safe: the frames arrive on transport threads, {@link #await} runs on the thread that closes.
 */
final class CloseTree {
    /** Sends one QUIESCE frame to a neighbour; may block; false if the neighbour is down. */
    interface Sender {
        boolean send(int neighbour, boolean release);
    }

    /** How {@link #await} ended. */
    enum Outcome {
        /** Every rank closed. */
        RELEASED,
        /** The parent went down before it released this rank. */
        PARENT_DOWN,
        /** The deadline passed first. */
        TIMED_OUT
    }

    private final int parent;
    private final int[] children;
    private final boolean[] childClosed;
    private int open;
    private boolean released;
    private boolean parentDown;

    private CloseTree(int parent, int[] children) {
        this.parent = parent;
        this.children = children;
        this.childClosed = new boolean[children.length];
        this.open = children.length;
    }

    /**
     * The tree of {@code graph} as {@code rank} sees it.
     *
     * @param graph the neighbour graph
     * @param rank this rank
     * @return its part of the tree
     */
    static CloseTree of(NeighbourGraph graph, int rank) {
        var kids = new ArrayList<Integer>();
        for (int n : graph.neighbours(rank)) {
            if (n != rank && parentOf(graph, n) == rank) {
                kids.add(n);
            }
        }
        return new CloseTree(parentOf(graph, rank), kids.stream().mapToInt(Integer::intValue).toArray());
    }

    /** The lowest-numbered neighbour of {@code rank} one link closer to rank 0; -1 for rank 0. */
    static int parentOf(NeighbourGraph graph, int rank) {
        if (rank == 0) {
            return -1;
        }
        int here = graph.distance(rank, 0);
        int best = -1;
        for (int n : graph.neighbours(rank)) {
            if (graph.distance(n, 0) == here - 1 && (best < 0 || n < best)) {
                best = n;
            }
        }
        return best;
    }

    /** {@return this rank's parent, -1 at rank 0} */
    int parent() {
        return parent;
    }

    /** {@return this rank's children} */
    int[] children() {
        return children.clone();
    }

    /**
     * Neighbour {@code from} says it and its subtree closed.
     *
     * @return false if {@code from} is not a child of this rank (the caller reports a protocol violation)
     */
    synchronized boolean onClosed(int from) {
        int i = indexOf(from);
        if (i < 0) {
            return false;
        }
        if (!childClosed[i]) {
            childClosed[i] = true;
            open--;
            notifyAll();
        }
        return true;
    }

    /**
     * Neighbour {@code from} says every rank closed.
     *
     * @return false if {@code from} is not this rank's parent (the caller reports a protocol violation)
     */
    synchronized boolean onRelease(int from) {
        if (from != parent || parent < 0) {
            return false;
        }
        released = true;
        notifyAll();
        return true;
    }

    /** A neighbour went down: as a child it counts as closed; as the parent it releases this rank's subtree. */
    synchronized void onPeerDown(int peer) {
        if (peer == parent && parent >= 0) {
            parentDown = true;
            notifyAll();
        } else if (indexOf(peer) >= 0) {
            onClosed(peer);
        }
    }

    /** {@return whether every rank closed (this rank was released by its parent, or is the root that released)} */
    synchronized boolean everyRankClosed() {
        return released;
    }

    /** {@return whether this rank was released (every rank closed, or its parent went down)} */
    synchronized boolean released() {
        return released || parentDown;
    }

    /**
     * This rank closed: waits until every child closed, tells the parent, waits for the release and passes it to the
     * children (also when the parent went down or the deadline passed, so that they stop waiting).
     *
     * @param send sends a QUIESCE frame to a neighbour
     * @param deadlineNanos when to stop waiting ({@link System#nanoTime()})
     * @return how it ended
     * @throws InterruptedException if interrupted while waiting
     */
    Outcome await(Sender send, long deadlineNanos) throws InterruptedException {
        Outcome outcome = waitFor(true, deadlineNanos);
        if (outcome == null && parent >= 0) {
            if (!send.send(parent, false)) {
                onPeerDown(parent);
            }
            outcome = waitFor(false, deadlineNanos);
        }
        if (outcome == null) {
            outcome = Outcome.RELEASED; // rank 0: every child closed
        }
        synchronized (this) {
            released = true;
        }
        for (int child : children) {
            send.send(child, true); // false: it is down, nothing to release
        }
        return outcome;
    }

    /**
     * Waits for the children ({@code children} true: until none is open) or for the release from the parent.
     *
     * @return null when what was waited for happened, else why the wait ended
     */
    private synchronized Outcome waitFor(boolean forChildren, long deadlineNanos) throws InterruptedException {
        while (true) {
            if (parentDown) {
                return Outcome.PARENT_DOWN;
            }
            if (forChildren ? open == 0 : released) {
                return null;
            }
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                return Outcome.TIMED_OUT;
            }
            wait(Math.max(1, left / 1_000_000), 0);
        }
    }

    /** {@return the children that have not said CLOSED (nor gone down), for a log line} */
    synchronized List<Integer> openChildren() {
        var out = new ArrayList<Integer>();
        for (int i = 0; i < children.length; i++) {
            if (!childClosed[i]) {
                out.add(children[i]);
            }
        }
        return out;
    }

    private int indexOf(int peer) {
        for (int i = 0; i < children.length; i++) {
            if (children[i] == peer) {
                return i;
            }
        }
        return -1;
    }
}
