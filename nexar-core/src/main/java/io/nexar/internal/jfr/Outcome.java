package io.nexar.internal.jfr;

/** The {@code outcome} field of nexar's events: "ok", or the failure's class and message. */
public final class Outcome {
    private Outcome() {
    }

    /** "ok" for null, else for example {@code PeerFailedException: allReduce on rank 0 ... cannot complete: ...}. */
    public static String of(Throwable failure) {
        return failure == null ? "ok" : failure.getClass().getSimpleName() + ": " + failure.getMessage();
    }
}
