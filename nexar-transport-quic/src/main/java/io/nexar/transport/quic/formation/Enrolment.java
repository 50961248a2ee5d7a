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
 * @param peers one entry per rank, in rank order; entry {@code rank} is this worker
 */
public record Enrolment(int rank, int worldSize, MemberCredentials credentials, List<PeerInfo> peers) {
    /** Copies the peer list. */
    public Enrolment {
        peers = List.copyOf(peers);
    }
}
