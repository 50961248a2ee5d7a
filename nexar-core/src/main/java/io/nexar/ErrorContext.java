package io.nexar;

/**
 * Where an error happened: the operation, the local rank and what is known of the communicator, sequence number,
 * tag and peer. Unknown numeric fields are {@code -1}.
 *
 * <p>{@link #describe()} renders the prefix of every nexar error message, for example
 * {@code allReduce on rank 2 (world 4, comm 0, seq 17, peer 1)}: every field that is known, the peer included.
 *
 * @param operation the operation that failed
 * @param rank the local rank, -1 before a rank is assigned
 * @param worldSize the communicator's size, -1 if unknown
 * @param communicator the communicator id, -1 if none
 * @param sequence the operation sequence number on the communicator, -1 if none
 * @param tag the user tag of a point-to-point operation, -1 if none
 * @param peer the remote rank involved, -1 if none or unknown
 */
public record ErrorContext(Operation operation, int rank, int worldSize, int communicator, long sequence, int tag,
                           int peer) {

    /** Checks that the operation is given. */
    public ErrorContext {
        if (operation == null) {
            throw new IllegalArgumentException("operation must not be null");
        }
    }

    /**
     * A context that knows only the operation and nothing about the cluster (before formation).
     *
     * @param operation the operation that failed
     * @return the context, with every numeric field -1
     */
    public static ErrorContext of(Operation operation) {
        return new ErrorContext(operation, -1, -1, -1, -1, -1, -1);
    }

    /**
     * A context for a point-to-point operation.
     *
     * @param operation the operation that failed
     * @param rank the local rank
     * @param worldSize the communicator's size
     * @param communicator the communicator id
     * @param tag the user tag
     * @param peer the remote rank, -1 if none (a receive from any source)
     * @return the context, without a sequence number
     */
    public static ErrorContext p2p(Operation operation, int rank, int worldSize, int communicator, int tag, int peer) {
        return new ErrorContext(operation, rank, worldSize, communicator, -1, tag, peer);
    }

    /**
     * This context with another peer.
     *
     * @param newPeer the remote rank involved
     * @return a copy of this context with {@code newPeer} as its peer
     */
    public ErrorContext withPeer(int newPeer) {
        return new ErrorContext(operation, rank, worldSize, communicator, sequence, tag, newPeer);
    }

    /**
     * {@return the standard message prefix: the operation, the rank and every known field (world size, communicator,
     * sequence number, tag, peer), for example {@code recv on rank 2 (world 4, comm 0, tag 7, peer 1)}}
     */
    public String describe() {
        var sb = new StringBuilder(operation.displayName());
        if (rank >= 0) {
            sb.append(" on rank ").append(rank);
        }
        var details = new StringBuilder();
        if (worldSize >= 0) {
            details.append("world ").append(worldSize);
        }
        if (communicator >= 0) {
            details.append(details.isEmpty() ? "" : ", ").append("comm ").append(communicator);
        }
        if (sequence >= 0) {
            details.append(details.isEmpty() ? "" : ", ").append("seq ").append(sequence);
        }
        if (tag >= 0) {
            details.append(details.isEmpty() ? "" : ", ").append("tag ").append(tag);
        }
        if (peer >= 0) {
            details.append(details.isEmpty() ? "" : ", ").append("peer ").append(peer);
        }
        if (!details.isEmpty()) {
            sb.append(" (").append(details).append(')');
        }
        return sb.toString();
    }
}
