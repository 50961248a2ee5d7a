package io.nexar.transport.quic;

import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;

/**
 * The life of this member's certificate (setting {@code cert.validity} at the seed that issued it): when to warn that
 * it is running out, and what to say. Renewal without restarting the job is not built (issue 16 item 3): a job that
 * outlives its certificates keeps its open connections, but every connection made after the expiry (a bulk lane set up
 * late, a growth) is refused by the peer's check ("expired at ..."). The warning comes early enough to plan a restart.
 */
final class CertificateLife {
    /** The share of the certificate's life after which the member warns. */
    static final double WARN_AT = 0.8;

    private CertificateLife() {
    }

    /** How long from {@code now} until the warning is due: 0 if due already (or expired). */
    static Duration untilWarning(X509Certificate leaf, Instant now) {
        Instant from = leaf.getNotBefore().toInstant();
        Instant to = leaf.getNotAfter().toInstant();
        Duration life = Duration.between(from, to);
        Instant warnAt = from.plus(Duration.ofMillis((long) (life.toMillis() * WARN_AT)));
        Duration left = Duration.between(now, warnAt);
        return left.isNegative() ? Duration.ZERO : left;
    }

    /** The warning (or, past the expiry, the error) naming this rank, the member, the expiry and the setting. */
    static String warning(int rank, String memberId, X509Certificate leaf, Instant now) {
        Instant to = leaf.getNotAfter().toInstant();
        Duration life = Duration.between(leaf.getNotBefore().toInstant(), to);
        String state = now.isBefore(to) ? "expires at " + to + " (in " + round(Duration.between(now, to)) + ")"
                : "expired at " + to;
        return "rank " + rank + ": the certificate of member " + memberId + " " + state + ", after "
                + round(life) + " (setting cert.validity at the seed that issued it): connections this member makes or"
                + " accepts after that (a late bulk lane, a growth) are refused, open ones go on. Certificates are"
                + " not renewed while the job runs: restart the job before then, or start it with a longer"
                + " cert.validity";
    }

    private static String round(Duration d) {
        return io.nexar.internal.config.Units.formatRounded(d);
    }
}
