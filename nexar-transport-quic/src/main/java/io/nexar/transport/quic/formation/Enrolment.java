package io.nexar.transport.quic.formation;

import io.nexar.transport.quic.MemberCredentials;
import io.nexar.transport.quic.PeerInfo;
import java.util.List;

/**
 * What a worker received from the seed: its place in the cluster, its credentials for every peer link, and where
 * every rank listens and who it must be.
 *
 * @param rank this worker's rank
 * @param worldSize the number of ranks
 * @param credentials this worker's key (generated locally), its CA-issued chain and the cluster CA
 * @param peers one entry per rank, in rank order; entry {@code rank} is this worker; for a worker admitted into a
 *              running cluster only the members and the newcomers (ranks of failed or departed members are missing)
 * @param admission for a worker admitted into a running cluster, the growth that admitted it; else null
 */
public record Enrolment(int rank, int worldSize, MemberCredentials credentials, List<PeerInfo> peers,
                        io.nexar.internal.protocol.EnrolmentMessage.Admission admission) {
    /** Copies the peer list. */
    public Enrolment {
        peers = List.copyOf(peers);
    }

    /** A founding member's enrolment. */
    public Enrolment(int rank, int worldSize, MemberCredentials credentials, List<PeerInfo> peers) {
        this(rank, worldSize, credentials, peers, null);
    }
}
