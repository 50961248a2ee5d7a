package io.nexar.transport.quic;

import io.nexar.CommunicatorClosedException;
import io.nexar.ClusterFormationException;
import io.nexar.internal.transport.Newcomer;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.Deadline;
import java.util.List;
import java.util.Objects;

/**
 * The membership part of {@link QuicTransport}'s API: a worker admitted into a running cluster connecting, members
 * admitting workers ({@link #admit}) and opening links to running members ({@link #linkMembers}, as a sparse topology
 * grows), and the renewal of this member's certificate. Each call works on the transport's state through
 * {@link QuicLifecycle} and {@link QuicPeerOps}; this class has none of its own. Sealed: {@link QuicTransport} is its
 * only subclass.
 */
abstract sealed class QuicMembership implements Transport permits QuicTransport {
    /** This transport. */
    private QuicTransport self() {
        return (QuicTransport) this;
    }

    /**
     * Like {@link QuicTransport#connect(List, Deadline)} for a worker admitted into a running cluster:
     * {@code peers} lists the members and the newcomers only; ranks missing from it (members that failed or left) get
     * no link.
     */
    public void connectAdmitted(List<PeerInfo> peers, Deadline deadline) {
        QuicLifecycle.connect(self(), peers, deadline, true);
    }

    /**
     * Renews this member's certificate from a seed before it expires ({@link CertificateRenewal}); call before
     * {@link QuicTransport#connect}. Without it, the member only warns at 80% of its certificate's life.
     *
     * @param seed asks the seed for a renewed chain for the same key
     */
    void renewCertificatesWith(CertificateRenewal.Renewer seed) {
        self().renewer = Objects.requireNonNull(seed, "seed");
    }

    /** This member's credentials now: the chain is the renewed one once a renewal succeeded. */
    MemberCredentials currentCredentials() {
        return self().slot.get();
    }

    /**
     * Connects to workers admitted into the running cluster: adds their links and table entries, dials them (they
     * have higher ranks than every member) and waits until each link is ready, then sets up their bulk lanes.
     *
     * @throws ClusterFormationException naming the first newcomer that failed, or those missing at the deadline
     * @throws IllegalArgumentException if a descriptor is malformed or names a rank or member already known
     */
    @Override
    public void admit(List<Newcomer> newcomers, Deadline deadline) {
        QuicLifecycle.admit(self(), newcomers, 0, deadline);
    }

    /**
     * Like {@link #admit(List, Deadline)} for some of a growth's newcomers (a sparse topology's member links only to
     * its neighbours in the grown graph; possibly none): the world size grows to {@code worldSize} all the same.
     *
     * @param linked the newcomers to connect to
     * @param worldSize the grown world size
     * @param deadline when to give up
     * @throws ClusterFormationException naming the first newcomer that failed, or those missing at the deadline
     * @throws IllegalArgumentException if a descriptor is malformed or names a rank or member already known
     */
    @Override
    public void admitLinks(List<Newcomer> linked, int worldSize, Deadline deadline) {
        QuicLifecycle.admit(self(), linked, worldSize, deadline);
    }

    /**
     * A QUIC member can open links to running members: the two exchange link offers first ({@link #linkOffer}).
     *
     * @return true
     */
    @Override
    public boolean linksMembers() {
        return true;
    }

    /**
     * This rank's peer-table entry as a PEER_TABLE frame of one entry ({@link PeerDescriptor}): where it listens and
     * which member identity its certificate names.
     *
     * @return the encoded frame
     * @throws CommunicatorClosedException if the transport is not connected
     */
    @Override
    public byte[] linkOffer() {
        return QuicPeerOps.linkOffer(self());
    }

    /**
     * Opens links to running members ({@link io.nexar.internal.transport.Transport#linkMembers}): adds their offered
     * entries to the peer table, so that a connection presenting the offered member identity is accepted, runs
     * {@code listed}, dials the peers above this rank and waits until every link (bulk lanes included) is formed.
     * A peer already in the table is linked already and skipped.
     *
     * @param peers the members, each with its link offer
     * @param listed run once they are in the peer table
     * @param deadline when to give up
     * @throws ClusterFormationException naming the first peer that failed, or those missing at the deadline
     * @throws IllegalArgumentException if an offer is malformed or names a member already known
     */
    @Override
    public void linkMembers(List<Newcomer> peers, Runnable listed, Deadline deadline) {
        QuicPeerOps.linkMembers(self(), peers, listed, deadline);
    }
}
