package io.nexar.transport.quic;

import io.nexar.internal.config.Units;
import io.netty.util.concurrent.ScheduledFuture;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this member's certificate valid while the job runs: at two thirds of its life ({@link CertificateLife}) it
 * asks the seed for a renewed one for the same key ({@link Renewer}, over the enrolment protocol) and puts it in the
 * {@link CredentialSlot}, which every later handshake reads; open connections keep theirs. A failed renewal is logged
 * at WARN and retried after a quarter of the time left (at least a second) until the certificate expires; without a
 * renewer (no seed that outlives formation is known) or if every attempt fails, the member warns at 80% of the life.
 *
 * <p>Timers run on an event loop of the transport, the renewal itself (network I/O) on a virtual thread. Cancelled by
 * {@link #stop()}.
 */
final class CertificateRenewal {
    private static final Logger LOG = LoggerFactory.getLogger(CertificateRenewal.class);
    /** The shortest delay between two attempts, so that a short certificate never makes a busy loop. */
    private static final Duration MIN_DELAY = Duration.ofMillis(500);

    /** Asks the seed for a renewed chain. */
    @FunctionalInterface
    interface Renewer {
        /**
         * Renews {@code current}'s certificate for the same key.
         *
         * @param current the member's credentials now
         * @return the renewed credentials (same key, member id and CA)
         * @throws RuntimeException naming the seed and what failed
         */
        MemberCredentials renew(MemberCredentials current);
    }

    private final int rank;
    private final CredentialSlot slot;
    private final Renewer renewer;
    private final BiFunction<Runnable, Duration, ScheduledFuture<?>> scheduler;
    private volatile boolean stopped;
    private volatile ScheduledFuture<?> nextRenewal;
    private volatile ScheduledFuture<?> warning;
    private volatile String lastFailure;

    /**
     * @param renewer the seed to renew from, or null if there is none (then only the warning)
     * @param scheduler runs an action once after a delay (an event loop of the transport)
     */
    CertificateRenewal(int rank, CredentialSlot slot, Renewer renewer,
                       BiFunction<Runnable, Duration, ScheduledFuture<?>> scheduler) {
        this.rank = rank;
        this.slot = slot;
        this.renewer = renewer;
        this.scheduler = scheduler;
    }

    /** Plans the renewal and the warning of the current certificate. */
    void start() {
        plan(slot.get().leaf());
    }

    /** Cancels whatever is planned; a renewal under way finishes but changes nothing after that. */
    void stop() {
        stopped = true;
        cancel(nextRenewal);
        cancel(warning);
    }

    private void plan(X509Certificate leaf) {
        Instant now = Instant.now();
        cancel(warning);
        warning = schedule(() -> {
            if (!stopped && slot.get().leaf() == leaf) {
                LOG.warn(expiryWarning());
            }
        }, CertificateLife.untilWarning(leaf, now));
        if (renewer != null) {
            planRenewal(leaf, CertificateLife.untilRenewal(leaf, now));
        }
    }

    private void planRenewal(X509Certificate leaf, Duration delay) {
        nextRenewal = schedule(() -> Thread.ofVirtual().name("nexar-cert-renewal-r" + rank).start(() -> renew(leaf)),
                delay.compareTo(MIN_DELAY) < 0 ? MIN_DELAY : delay);
    }

    private void renew(X509Certificate leaf) {
        if (stopped) {
            return;
        }
        MemberCredentials current = slot.get();
        Instant expiry = leaf.getNotAfter().toInstant();
        try {
            MemberCredentials renewed = renewer.renew(current);
            if (stopped) {
                return;
            }
            slot.renew(renewed);
            X509Certificate next = renewed.leaf();
            LOG.info("rank {}: renewed the certificate of member {} from the seed: valid until {} (was {})", rank,
                    renewed.memberId(), next.getNotAfter().toInstant(), expiry);
            plan(next);
        } catch (RuntimeException e) {
            if (stopped) {
                return;
            }
            lastFailure = e.getMessage();
            Duration left = Duration.between(Instant.now(), expiry);
            if (left.isNegative() || left.isZero()) {
                LOG.error("rank {}: the certificate of member {} expired at {} and was not renewed: {}; connections"
                        + " made from now on are refused by their peers, open ones go on", rank, current.memberId(),
                        expiry, e.getMessage());
                return;
            }
            Duration retry = left.dividedBy(4).compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1)
                    : left.dividedBy(4);
            LOG.warn("rank {}: {}; retrying in {} (the certificate expires at {}). If the seed is gone for good"
                    + " (it exited or died; only it holds the CA's key, so no member can renew), restart the job"
                    + " before then, or start it with a longer cert.validity", rank, e.getMessage(),
                    Units.formatRounded(retry), expiry);
            planRenewal(leaf, retry);
        }
    }

    /** The warning at 80% of the current certificate's life: its expiry, why it was not renewed, what to do. */
    String expiryWarning() {
        return CertificateLife.warning(rank, slot.get().memberId(), slot.get().leaf(), Instant.now(), renewer == null
                ? "no seed that outlives formation is known to this member" : "last attempt: " + lastFailure);
    }

    private ScheduledFuture<?> schedule(Runnable action, Duration delay) {
        if (stopped) {
            return null;
        }
        try {
            return scheduler.apply(action, delay);
        } catch (RejectedExecutionException stopping) {
            LOG.debug("rank {}: event loops are stopping; no certificate renewal or warning scheduled", rank);
            return null;
        }
    }

    private static void cancel(ScheduledFuture<?> f) {
        if (f != null) {
            f.cancel(false);
        }
    }
}
