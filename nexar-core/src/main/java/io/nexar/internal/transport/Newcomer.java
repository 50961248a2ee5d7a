package io.nexar.internal.transport;

/**
 * A worker admitted into a running cluster by {@link io.nexar.Communicator#grow}: its world rank and how the
 * transport reaches and identifies it, in the transport's own encoding (for QUIC: member id and addresses).
 *
 * @param worldRank the world rank the seed assigned, above every rank the cluster has used
 * @param descriptor the transport's description of the worker; copied
 */
public record Newcomer(int worldRank, byte[] descriptor) {
    /** Copies the descriptor. */
    public Newcomer {
        if (worldRank < 0) {
            throw new IllegalArgumentException("worldRank " + worldRank + " is negative");
        }
        descriptor = descriptor.clone();
    }

    @Override
    public byte[] descriptor() {
        return descriptor.clone();
    }
}
