package io.nexar.internal.protocol;

/** The step of the failed-set agreement a {@link Message.Agree} carries (docs/failure-model.md); one byte on the wire. */
public enum AgreeKind {
    /** A member's failed set (and the ballot and value it accepted last, if any), sent to every member. */
    PROPOSE(1),
    /** The coordinator asks the members to accept a value under a ballot (the failed set it saw everywhere). */
    ACCEPT(2),
    /** A member accepted the ballot. */
    ACK(3),
    /** The value is decided; every member that learns it relays it once. */
    DECIDE(4);

    private final int code;

    AgreeKind(int code) {
        this.code = code;
    }

    /** The wire code. */
    public int code() {
        return code;
    }

    /** The kind for a wire code, or null if unknown. */
    public static AgreeKind fromCode(int code) {
        for (AgreeKind k : values()) {
            if (k.code == code) {
                return k;
            }
        }
        return null;
    }
}
