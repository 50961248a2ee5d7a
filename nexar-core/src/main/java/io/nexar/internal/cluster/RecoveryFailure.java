package io.nexar.internal.cluster;

/** Why an agreement could not give this process a communicator; the waiting caller adds its context. No stack. */
final class RecoveryFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RecoveryFailure(String why) {
        super(why, null, false, false);
    }
}
