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

    /** The worker is rank {@code rank} of the formed cluster. */
    record Accepted(int rank, int worldSize, List<PeerInfo> peers) implements Outcome {
    }

    /** The worker is refused. */
    record Refused(JoinRefusal code, String reason) implements Outcome {
    }

    /** A verified join request waiting for the cluster to form. */
    static final class Candidate {
        final int requestedRank;
        final String memberId;
        final X509Certificate leaf;
        final ByteBuffer publicKey;
        final InetSocketAddress quicAddress;
        final InetSocketAddress bulkAddress;
        final CompletableFuture<Outcome> outcome = new CompletableFuture<>();

        Candidate(int requestedRank, String memberId, X509Certificate leaf, InetSocketAddress quicAddress,
                  InetSocketAddress bulkAddress) {
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
            if (phase == Phase.FORMED) {
                return new Refused(JoinRefusal.CLUSTER_FORMED, "cluster already formed: all " + worldSize
                        + " ranks are assigned");
            } else if (phase == Phase.FAILED) {
                return failure;
            } else if (enrolledKeys.contains(c.publicKey)) {
                return new Refused(JoinRefusal.KEY_ALREADY_ENROLLED, "key already enrolled: this CSR's public key"
                        + " has already joined (a replayed or duplicated request)");
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

    /** A candidate's connection ended before formation: frees its rank and key. No effect once formed. */
    boolean leave(Candidate c) {
        lock.lock();
        try {
            if (phase != Phase.FORMING || !arrivals.remove(c)) {
                return false;
            }
            enrolledKeys.remove(c.publicKey);
            if (c.requestedRank >= 0) {
                requested.remove(c.requestedRank, c);
            }
            c.outcome.complete(new Refused(JoinRefusal.PROTOCOL_ERROR, "connection closed before formation"));
            return true;
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
        for (int rank = 0; rank < worldSize; rank++) {
            byRank[rank].outcome.complete(new Accepted(rank, worldSize, table));
        }
        formed.complete(table);
    }
}
