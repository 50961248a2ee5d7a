package io.nexar.testkit;

/**
 * A rank's body in a {@link LocalCluster} threw. The cause is the first failure (in time); failures of other ranks
 * that followed, usually consequences such as a {@link io.nexar.PeerFailedException}, are attached as suppressed.
 */
public final class RankFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    /** The rank whose body failed first, or -1. */
    private final int rank;

    /**
     * For {@link TestCluster} implementations outside this package (network transports' test clusters).
     *
     * @param rank the rank whose body failed first, or -1 if the run timed out with no failure
     * @param message what happened, naming the rank
     * @param cause the rank's failure, or null
     */
    public RankFailedException(int rank, String message, Throwable cause) {
        super(message, cause);
        this.rank = rank;
    }

    /** {@return the rank whose body failed first, or -1 if the cluster timed out with no failure} */
    public int rank() {
        return rank;
    }
}
