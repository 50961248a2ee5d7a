package io.nexar.transport.quic;

import io.nexar.transport.quic.security.ClusterCa;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;

/**
 * The life of this member's certificate (setting {@code cert.validity} at the seed that issued it): when to renew it
 * ({@link CertificateRenewal}: at two thirds of its life), when to warn that it is running out (at 80%, if it was not
 * renewed by then), and what to say. A job that outlives a certificate that was not renewed keeps its open
 * connections, but every connection made after the expiry (a bulk lane set up late, a growth) is refused by the
 * peer's check ("expired at ...").
 */
final class CertificateLife {
    /** The share of the certificate's life after which the member warns. */
    static final double WARN_AT = 0.8;
    /** The share of the certificate's life after which the member asks the seed for a renewed one. */
    static final double RENEW_AT = 2.0 / 3;

    private CertificateLife() {
    }

    /** How long from {@code now} until the warning is due: 0 if due already (or expired). */
    static Duration untilWarning(X509Certificate leaf, Instant now) {
        return until(leaf, WARN_AT, now);
    }

    /** How long from {@code now} until the renewal is due: 0 if due already (or expired). */
    static Duration untilRenewal(X509Certificate leaf, Instant now) {
        return until(leaf, RENEW_AT, now);
    }

    private static Duration until(X509Certificate leaf, double share, Instant now) {
        Instant from = issued(leaf);
        Duration life = Duration.between(from, leaf.getNotAfter().toInstant());
        Duration left = Duration.between(now, from.plus(Duration.ofMillis((long) (life.toMillis() * share))));
        return left.isNegative() ? Duration.ZERO : left;
    }

    /**
     * When the certificate was issued: {@code notBefore} plus the CA's backdating for clock skew
     * ({@link ClusterCa#BACKDATE}), unless the certificate is shorter than that.
     */
    static Instant issued(X509Certificate leaf) {
        Instant from = leaf.getNotBefore().toInstant();
        Instant backdated = from.plus(ClusterCa.BACKDATE);
        return backdated.isBefore(leaf.getNotAfter().toInstant()) ? backdated : from;
    }

    /** The warning (or, past the expiry, the error) naming this rank, the member, the expiry and the setting. */
    static String warning(int rank, String memberId, X509Certificate leaf, Instant now, String renewal) {
        Instant to = leaf.getNotAfter().toInstant();
        Duration life = Duration.between(issued(leaf), to);
        String state = now.isBefore(to) ? "expires at " + to + " (in " + round(Duration.between(now, to)) + ")"
                : "expired at " + to;
        return "rank " + rank + ": the certificate of member " + memberId + " " + state + ", after "
                + round(life) + " (setting cert.validity at the seed that issued it): connections this member makes or"
                + " accepts after that (a late bulk lane, a growth) are refused, open ones go on. It was not renewed ("
                + renewal + "): restart the job before then, or start it with a longer cert.validity";
    }

    private static String round(Duration d) {
        return io.nexar.internal.config.Units.formatRounded(d);
    }
}
