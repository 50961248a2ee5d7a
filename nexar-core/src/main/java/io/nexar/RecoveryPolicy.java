package io.nexar;

import java.util.Locale;

/**
 * What the survivors do when a rank fails (setting {@link ConfigKey#RECOVERY_POLICY}); docs/failure-model.md has the
 * details and timings.
 */
public enum RecoveryPolicy {
    /**
     * Every pending and later operation of the process fails with a {@link PeerFailedException} naming the failed
     * rank; the communicators stay unusable until closed.
     */
    ABORT,
    /**
     * Operations that need the failed rank fail with a {@link PeerFailedException}; others go on. The application
     * calls {@link Communicator#shrink()} on every survivor to get a communicator of the survivors.
     */
    MANUAL,
    /**
     * The survivors agree on the failed set by themselves and the world communicator continues with them, renumbered
     * densely; the operation that saw the failure throws a {@link PeerFailedException} once the rebuilt communicator
     * is ready, and watchers get a {@link MembershipEvent.Rebuilt} with the old-to-new rank map.
     */
    AUTOMATIC;

    /** {@return the setting's text: abort, manual or automatic} */
    public String key() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The policy named {@code key} (as {@link #key()} spells it, in any case).
     *
     * @param key abort, manual or automatic
     * @return the policy
     * @throws IllegalArgumentException if no policy has that name
     */
    public static RecoveryPolicy fromKey(String key) {
        return valueOf(key.toUpperCase(Locale.ROOT));
    }
}
