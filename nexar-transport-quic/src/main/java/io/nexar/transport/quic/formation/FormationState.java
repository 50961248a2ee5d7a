package io.nexar.transport.quic.formation;

import io.nexar.internal.protocol.JoinRefusal;
import io.nexar.transport.quic.PeerInfo;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The seed's membership decisions, with one owner: every change happens under one short lock that never spans I/O.
 * Connection handlers {@linkplain #admit admit} candidates as their requests verify; when {@code worldSize} are
 * admitted, ranks are assigned (requested ranks honoured, the rest in arrival order) and every candidate's outcome
 * completes with the peer table. A candidate whose connection ends before that {@linkplain #leave leaves} and frees
 * its rank and key. {@link #fail} ends formation (deadline, close) and refuses everyone still waiting.
 */
final class FormationState {

    /** What a candidate's connection tells its worker. */
    sealed interface Outcome permits Accepted, Refused {
    }

    /**
     * The worker is rank {@code rank} of the formed cluster, or (with an {@code admission}) a worker admitted into
     * the running cluster; {@code peers} then lists the members and the newcomers only.
     */
    record Accepted(int rank, int worldSize, List<PeerInfo> peers, Admission admission) implements Outcome {
        Accepted(int rank, int worldSize, List<PeerInfo> peers) {
            this(rank, worldSize, peers, null);
        }
    }

    /** The worker is refused. */
    record Refused(JoinRefusal code, String reason) implements Outcome {
    }

    /**
     * A growth of the running cluster: the members' world ranks, and the admitted workers with their new ranks.
     *
     * @param communicator the grown world communicator's id (from the poll)
     * @param generation its generation (from the poll)
     */
    record Admission(int communicator, int generation, int[] members, List<PeerInfo> newcomers) {
    }

    /** A verified join request waiting for the cluster to form. */
    static final class Candidate {
        final int requestedRank;
        final String memberId;
        final X509Certificate leaf;
        final ByteBuffer publicKey;
        final InetSocketAddress quicAddress;
        final InetSocketAddress bulkAddress;
        final boolean elastic;
        final CompletableFuture<Outcome> outcome = new CompletableFuture<>();

        Candidate(int requestedRank, String memberId, X509Certificate leaf, InetSocketAddress quicAddress,
                  InetSocketAddress bulkAddress) {
            this(requestedRank, memberId, leaf, quicAddress, bulkAddress, false);
        }

        Candidate(int requestedRank, String memberId, X509Certificate leaf, InetSocketAddress quicAddress,
                  InetSocketAddress bulkAddress, boolean elastic) {
            this.elastic = elastic;
            this.requestedRank = requestedRank;
            this.memberId = memberId;
            this.leaf = leaf;
            this.publicKey = ByteBuffer.wrap(leaf.getPublicKey().getEncoded());
            this.quicAddress = quicAddress;
            this.bulkAddress = bulkAddress;
        }
    }

    private enum Phase { FORMING, FORMED, FAILED }

    private final int worldSize;
    private final ReentrantLock lock = new ReentrantLock();
    private final List<Candidate> arrivals = new ArrayList<>();
    private final TreeMap<Integer, Candidate> requested = new TreeMap<>();
    private final Set<ByteBuffer> enrolledKeys = new HashSet<>();
    private final CompletableFuture<List<PeerInfo>> formed = new CompletableFuture<>();
    /** Elastic workers waiting for a grow(), oldest first. */
    private final List<Candidate> waiting = new ArrayList<>();
    /** Every rank this seed ever assigned (formation and growths), for describing members to newcomers. */
    private final TreeMap<Integer, PeerInfo> assigned = new TreeMap<>();
    /** The next world rank a growth assigns: ranks are never reused. */
    private int nextRank;
    private Phase phase = Phase.FORMING;
    private Refused failure;

    FormationState(int worldSize) {
        this.worldSize = worldSize;
    }

    /** Completes with the peer table when the cluster forms, exceptionally never (see {@link #failure()}). */
    CompletableFuture<List<PeerInfo>> formed() {
        return formed;
    }

    /** Why formation failed, or null while it has not. */
    Refused failure() {
        lock.lock();
        try {
            return failure;
        } finally {
            lock.unlock();
        }
    }

    /** Workers admitted so far (all of them once formed). */
    int joined() {
        lock.lock();
        try {
            return phase == Phase.FORMED ? worldSize : arrivals.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Admits a verified request, or says why not. If it completes the world, forms the cluster: every candidate's
     * outcome (this one's included) is complete on return.
     *
     * @return null if admitted, else the refusal
     */
    Refused admit(Candidate c) {
        lock.lock();
        try {
            if (c.elastic) {
                return admitElastic(c);
            }
            if (phase == Phase.FORMED) {
                return new Refused(JoinRefusal.CLUSTER_FORMED, "cluster already formed: all " + worldSize
                        + " ranks are assigned");
            } else if (phase == Phase.FAILED) {
                return failure;
            } else if (enrolledKeys.contains(c.publicKey)) {
                return replayed();
            } else if (c.requestedRank >= worldSize) {
                return new Refused(JoinRefusal.RANK_UNAVAILABLE, "requested rank " + c.requestedRank
                        + " is not in [0, " + worldSize + ")");
            } else if (c.requestedRank >= 0 && requested.containsKey(c.requestedRank)) {
                return new Refused(JoinRefusal.RANK_UNAVAILABLE, "requested rank " + c.requestedRank
                        + " is already taken by another worker");
            }
            enrolledKeys.add(c.publicKey);
            arrivals.add(c);
            if (c.requestedRank >= 0) {
                requested.put(c.requestedRank, c);
            }
            if (arrivals.size() == worldSize) {
                form();
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** An elastic candidate waits for the members' next grow() (its outcome completes then). Under the lock. */
    private Refused admitElastic(Candidate c) {
        if (phase == Phase.FAILED) {
            return failure;
        } else if (enrolledKeys.contains(c.publicKey)) {
            return replayed();
        }
        enrolledKeys.add(c.publicKey);
        waiting.add(c);
        return null;
    }

    /** The refusal of a request whose key has already enrolled. */
    private static Refused replayed() {
        return new Refused(JoinRefusal.KEY_ALREADY_ENROLLED, "key already enrolled: this CSR's public key has already"
                + " joined (a replayed or duplicated request)");
    }

    /** Elastic workers waiting now. */
    int waiting() {
        lock.lock();
        try {
            return waiting.size();
        } finally {
            lock.unlock();
        }
    }

    /**
     * A member's GROW_POLL: admits up to {@code max} waiting workers (oldest first) as the next world ranks, and
     * completes their outcomes with the members, the newcomers and the admission.
     *
     * @return the admission (its newcomers possibly empty), or the refusal
     */
    Outcome poll(int max, int communicator, int generation, int[] members) {
        lock.lock();
        try {
            if (phase != Phase.FORMED) {
                return new Refused(JoinRefusal.PROTOCOL_ERROR, "the cluster has not formed: nothing to grow");
            }
            var table = new ArrayList<PeerInfo>();
            for (int m : members) {
                PeerInfo p = assigned.get(m);
                if (p == null) {
                    return new Refused(JoinRefusal.PROTOCOL_ERROR, "world rank " + m + " was never assigned by this"
                            + " seed");
                }
                table.add(p);
            }
            int n = Math.min(max, waiting.size());
            var newcomers = new ArrayList<PeerInfo>(n);
            var taken = new ArrayList<Candidate>(n);
            for (int i = 0; i < n; i++) {
                Candidate c = waiting.removeFirst();
                PeerInfo p = new PeerInfo(nextRank++, c.memberId, c.quicAddress, c.bulkAddress);
                assigned.put(p.rank(), p);
                newcomers.add(p);
                taken.add(c);
            }
            table.addAll(newcomers);
            table.sort(java.util.Comparator.comparingInt(PeerInfo::rank));
            var admission = new Admission(communicator, generation, members, List.copyOf(newcomers));
            List<PeerInfo> peers = List.copyOf(table);
            for (int i = 0; i < n; i++) {
                taken.get(i).outcome.complete(new Accepted(newcomers.get(i).rank(), nextRank, peers, admission));
            }
            return new Accepted(-1, nextRank, peers, admission);
        } finally {
            lock.unlock();
        }
    }

    /** Refuses every elastic worker still waiting (the seed is closing). */
    void refuseWaiting(JoinRefusal code, String reason) {
        lock.lock();
        try {
            for (Candidate c : waiting) {
                c.outcome.complete(new Refused(code, reason));
            }
            waiting.clear();
        } finally {
            lock.unlock();
        }
    }

    /**
     * A candidate's connection ended before formation: frees its rank and key. No effect once formed.
     *
     * @return -1 if it had no effect, 0 if an elastic worker stopped waiting, else how many workers were enrolled
     *         before this one left (formation needs that many again: see {@link #failUnlessRefilled})
     */
    int leave(Candidate c) {
        lock.lock();
        try {
            if (waiting.remove(c)) { // an elastic worker gave up waiting
                enrolledKeys.remove(c.publicKey);
                c.outcome.complete(new Refused(JoinRefusal.PROTOCOL_ERROR, "connection closed before admission"));
                return 0;
            }
            int before = arrivals.size();
            if (phase != Phase.FORMING || !arrivals.remove(c)) {
                return -1;
            }
            enrolledKeys.remove(c.publicKey);
            if (c.requestedRank >= 0) {
                requested.remove(c.requestedRank, c);
            }
            c.outcome.complete(new Refused(JoinRefusal.PROTOCOL_ERROR, "connection closed before formation"));
            return before;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ends formation ({@link #fail}, code DEADLINE_PASSED) if it is still forming with fewer than {@code needed}
     * workers enrolled: a worker left and nobody took its place in time, so the others would only wait for the
     * formation deadline.
     *
     * @return the refusal if this call failed formation, else null
     */
    Refused failUnlessRefilled(int needed, String reason) {
        lock.lock();
        try {
            return phase == Phase.FORMING && arrivals.size() < needed
                    ? fail(JoinRefusal.DEADLINE_PASSED, reason) : null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Ends formation unless it has completed: every waiting candidate and every later request gets
     * {@code code}, with the reason followed by how many workers joined.
     *
     * @return the refusal if this call failed formation, null if it had already formed or failed
     */
    Refused fail(JoinRefusal code, String reason) {
        lock.lock();
        try {
            if (phase != Phase.FORMING) {
                return null;
            }
            phase = Phase.FAILED;
            failure = new Refused(code, reason + ": " + arrivals.size() + " of " + worldSize + " workers joined");
            for (Candidate c : arrivals) {
                c.outcome.complete(failure);
            }
            for (Candidate c : waiting) {
                c.outcome.complete(failure);
            }
            waiting.clear();
            return failure;
        } finally {
            lock.unlock();
        }
    }

    /** Assigns ranks and completes every outcome. Called under the lock. */
    private void form() {
        Candidate[] byRank = new Candidate[worldSize];
        requested.forEach((rank, c) -> byRank[rank] = c);
        int next = 0;
        for (Candidate c : arrivals) {
            if (c.requestedRank < 0) {
                while (byRank[next] != null) {
                    next++;
                }
                byRank[next] = c;
            }
        }
        var peers = new ArrayList<PeerInfo>(worldSize);
        for (int rank = 0; rank < worldSize; rank++) {
            Candidate c = byRank[rank];
            peers.add(new PeerInfo(rank, c.memberId, c.quicAddress, c.bulkAddress));
        }
        List<PeerInfo> table = List.copyOf(peers);
        phase = Phase.FORMED;
        for (PeerInfo p : table) {
            assigned.put(p.rank(), p);
        }
        nextRank = worldSize;
        for (int rank = 0; rank < worldSize; rank++) {
            byRank[rank].outcome.complete(new Accepted(rank, worldSize, table));
        }
        formed.complete(table);
    }
}
