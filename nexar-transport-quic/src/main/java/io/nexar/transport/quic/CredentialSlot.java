package io.nexar.transport.quic;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * This member's current credentials: the same private key, member id and cluster CA for the life of the process, and
 * a certificate chain that a renewal replaces ({@link CertificateRenewal}). Every TLS context of the member reads it
 * at each handshake ({@link io.nexar.transport.quic.security.TlsMaterial#keyManagerFactory(Supplier)}), so a renewed
 * certificate is presented by every connection made after the renewal, and open connections are untouched.
 *
 * <p>Thread-safe: one volatile reference.
 */
final class CredentialSlot implements Supplier<MemberCredentials> {
    private volatile MemberCredentials current;

    CredentialSlot(MemberCredentials initial) {
        this.current = Objects.requireNonNull(initial, "initial");
    }

    /** A slot that is never renewed, for components used without a transport (tests, tools). */
    static CredentialSlot fixed(MemberCredentials credentials) {
        return new CredentialSlot(credentials);
    }

    @Override
    public MemberCredentials get() {
        return current;
    }

    /**
     * Replaces the chain with a renewed one.
     *
     * @throws IllegalArgumentException if {@code renewed} has another key, member id or CA than the current one
     */
    void renew(MemberCredentials renewed) {
        MemberCredentials now = current;
        if (!renewed.memberId().equals(now.memberId())
                || !renewed.leaf().getPublicKey().equals(now.leaf().getPublicKey())
                || !renewed.clusterCa().equals(now.clusterCa())) {
            throw new IllegalArgumentException("the renewed certificate of member " + renewed.memberId()
                    + " does not certify the same member, key and CA as the current one of member " + now.memberId());
        }
        current = renewed;
    }
}
