package io.nexar.transport.quic.security;

import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The worker's trust in the seed during enrolment, before it has any certificate of its own: the seed's chain is
 * accepted only if it contains a CA certificate whose SHA-256 fingerprint equals the one pinned by the join string,
 * and the leaf is a valid server certificate issued by that CA for the expected member ({@link PeerVerifier}). There
 * is no trust on first use and no way to skip the check.
 *
 * <p>For a token-only join string ({@link #forTokenProof}) there is no fingerprint yet: the chain must still contain a
 * CA certificate that issued a valid leaf for the expected member, but which CA is trusted is decided after the
 * handshake, by the seed's channel-bound proof of the token, which covers that CA ({@link JoinToken#seedProof}). Until
 * that proof verifies, {@link #pinnedCa()} is only a candidate, and the worker sends nothing but its own proof and
 * CSR.
 *
 * <p>After a handshake the manager remembers the CA it matched ({@link #pinnedCa()}), or why it refused
 * ({@link #failure()}), so the caller can report the precise reason rather than the TLS alert. One manager serves
 * one connection attempt at a time.
 */
public final class PinnedCaTrustManager extends ChainOnlyTrustManager {

    private final String fingerprint;
    private final String expectedMemberId;
    private volatile X509Certificate pinnedCa;
    private volatile CertificateException failure;

    /**
     * A trust manager for one seed.
     *
     * @param fingerprint the pinned CA fingerprint, {@code sha256:} and 64 hex digits (see {@link JoinString})
     * @param expectedMemberId the member id the server's leaf must name, for the seed {@link ClusterCa#SEED_MEMBER_ID}
     */
    public PinnedCaTrustManager(String fingerprint, String expectedMemberId) {
        this.fingerprint = Objects.requireNonNull(fingerprint, "fingerprint");
        this.expectedMemberId = Objects.requireNonNull(expectedMemberId, "expectedMemberId");
    }

    private PinnedCaTrustManager(String expectedMemberId) {
        this.fingerprint = null;
        this.expectedMemberId = Objects.requireNonNull(expectedMemberId, "expectedMemberId");
    }

    /**
     * A trust manager for a token-only enrolment: it accepts a well-formed chain of any CA (see the class comment);
     * the caller must then authenticate that CA by the seed's proof of the token before trusting it.
     */
    public static PinnedCaTrustManager forTokenProof(String expectedMemberId) {
        return new PinnedCaTrustManager(expectedMemberId);
    }

    /** The CA certificate of the last accepted chain, or null if none was accepted. */
    public X509Certificate pinnedCa() {
        return pinnedCa;
    }

    /** Why the last chain was refused, or null. */
    public CertificateException failure() {
        return failure;
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        try {
            List<X509Certificate> certs = PeerVerifier.x509(chain);
            if (fingerprint == null) {
                pinnedCa = candidate(certs);
                failure = null;
                return;
            }
            X509Certificate ca = null;
            String presented = null;
            for (X509Certificate c : certs) {
                if (c.getBasicConstraints() < 0) {
                    continue;
                }
                String fp = ClusterCa.fingerprint(c);
                presented = presented == null ? fp : presented;
                if (fp.equals(fingerprint)) {
                    ca = c;
                }
            }
            if (ca == null) {
                throw new CertificateException("presented " + (presented == null ? "no CA certificate"
                        : "CA " + presented) + " but the join string pins " + fingerprint);
            }
            new PeerVerifier(ca).check(certs, expectedMemberId, PeerVerifier.SERVER_AUTH, Instant.now());
            pinnedCa = ca;
            failure = null;
        } catch (CertificateException e) {
            failure = e;
            throw e;
        }
    }

    /** The CA certificate of {@code certs} that issued a valid leaf for the expected member. */
    private X509Certificate candidate(List<X509Certificate> certs) throws CertificateException {
        CertificateException last = null;
        for (X509Certificate c : certs) {
            if (c.getBasicConstraints() < 0) {
                continue;
            }
            try {
                new PeerVerifier(c).check(certs, expectedMemberId, PeerVerifier.SERVER_AUTH, Instant.now());
                return c;
            } catch (CertificateException e) {
                last = e;
            }
        }
        throw last != null ? last : new CertificateException("presented no CA certificate in its chain");
    }

    /** Always refuses: this manager is for the client end of enrolment only. */
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        throw new CertificateException("a pinned-CA trust manager authenticates servers only");
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
    }
}
