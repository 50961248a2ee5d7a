package io.nexar.transport.quic;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * The validated peer table of one cluster: at most one {@link PeerInfo} per rank, with distinct member ids. A table
 * from formation has every rank; a worker admitted into a running cluster gets the members and newcomers only (the
 * ranks of members that failed or left are missing), and a growth adds ranks ({@link #with}). Immutable and
 * thread-safe.
 */
final class PeerTable {
    private final List<PeerInfo> peers;
    private final Map<String, Integer> rankByMember;

    private PeerTable(List<PeerInfo> peers, Map<String, Integer> rankByMember) {
        this.peers = peers;
        this.rankByMember = rankByMember;
    }

    /**
     * Like {@link #of} for a worker admitted into a running cluster: ranks may be missing.
     *
     * @throws IllegalArgumentException as {@link #of}, except for the number of entries
     */
    static PeerTable sparse(List<PeerInfo> peers, int rank, int worldSize, String ownMemberId) {
        return build(peers, rank, worldSize, ownMemberId);
    }

    /**
     * This table with {@code added} (ranks not in it yet), sized for {@code worldSize} ranks.
     *
     * @throws IllegalArgumentException if a rank or member is already in the table, or a rank is out of range
     */
    PeerTable with(List<PeerInfo> added, int worldSize, int rank, String ownMemberId) {
        var all = new java.util.ArrayList<PeerInfo>(peers.size() + added.size());
        for (PeerInfo p : peers) {
            if (p != null) {
                all.add(p);
            }
        }
        all.addAll(added);
        return build(all, rank, worldSize, ownMemberId);
    }

    /** The number of rank slots (the highest rank plus one, at least the formed world size). */
    int size() {
        return peers.size();
    }

    /**
     * Checks {@code peers} against this member's rank, world size and identity.
     *
     * @throws IllegalArgumentException naming the first problem: wrong size, a rank missing or twice, a duplicate
     *         member id, a missing address, or an own entry that names another member than our certificate
     */
    static PeerTable of(List<PeerInfo> peers, int rank, int worldSize, String ownMemberId) {
        Objects.requireNonNull(peers, "peers");
        if (peers.size() != worldSize) {
            throw new IllegalArgumentException("the peer table has " + peers.size() + " entries, the world size is "
                    + worldSize);
        }
        return build(peers, rank, worldSize, ownMemberId);
    }

    private static PeerTable build(List<PeerInfo> peers, int rank, int worldSize, String ownMemberId) {
        var byRank = new PeerInfo[worldSize];
        var rankByMember = new HashMap<String, Integer>();
        for (PeerInfo p : peers) {
            Objects.requireNonNull(p, "peer table entry");
            if (p.rank() < 0 || p.rank() >= worldSize) {
                throw new IllegalArgumentException("peer table rank " + p.rank() + " is not in [0, " + worldSize + ")");
            }
            if (byRank[p.rank()] != null) {
                throw new IllegalArgumentException("the peer table names rank " + p.rank() + " twice");
            }
            if (p.memberId() == null || p.memberId().isEmpty()) {
                throw new IllegalArgumentException("the peer table entry of rank " + p.rank() + " has no member id");
            }
            if (p.quicAddress() == null && p.rank() != rank) {
                throw new IllegalArgumentException("the peer table entry of rank " + p.rank() + " has no QUIC address");
            }
            Integer other = rankByMember.putIfAbsent(p.memberId(), p.rank());
            if (other != null) {
                throw new IllegalArgumentException("the peer table names member " + p.memberId() + " for ranks "
                        + other + " and " + p.rank());
            }
            byRank[p.rank()] = p;
        }
        if (byRank[rank] == null) {
            throw new IllegalArgumentException("the peer table has no entry for this rank (" + rank + ")");
        }
        if (!byRank[rank].memberId().equals(ownMemberId)) {
            throw new IllegalArgumentException("the peer table says rank " + rank + " is member "
                    + byRank[rank].memberId() + ", but this member's certificate names " + ownMemberId);
        }
        return new PeerTable(java.util.Collections.unmodifiableList(java.util.Arrays.asList(byRank)),
                Map.copyOf(rankByMember));
    }

    /** The entry of {@code rank}, or null if the table has none. */
    PeerInfo get(int rank) {
        return peers.get(rank);
    }

    /** The rank whose entry names {@code memberId}, if any. */
    OptionalInt rankOf(String memberId) {
        Integer r = memberId == null ? null : rankByMember.get(memberId);
        return r == null ? OptionalInt.empty() : OptionalInt.of(r);
    }
}
