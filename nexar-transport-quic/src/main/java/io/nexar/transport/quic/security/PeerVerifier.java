package io.nexar.transport.quic.security;

import io.nexar.transport.quic.MemberIdentity;
import java.security.GeneralSecurityException;
import java.security.InvalidAlgorithmParameterException;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.CertificateParsingException;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Checks a peer's certificate chain against the cluster CA and, where the caller knows it, the member identity the
 * peer must have. Every peer link (QUIC and the TCP bulk lane) uses it, in the TLS handshake through
 * {@link #trustManager()} / {@link #trustManager(String)} and after it through {@link #verify(SSLSession, String)}.
 *
 * <p>A chain is accepted when its first certificate (the leaf):
 * <ol>
 *   <li>was issued by the cluster CA: its issuer is the CA's subject and its signature verifies with the CA's key
 *       (a certificate from another CA, even one with the same name, is refused);</li>
 *   <li>is valid now, and so is the CA;</li>
 *   <li>is not itself a CA, allows {@code digitalSignature} if it has a key usage, and allows the TLS role (server
 *       or client authentication) if it has an extended key usage;</li>
 *   <li>names exactly one member identity ({@link MemberIdentity}), equal to the expected one if one is given;</li>
 *   <li>names a member that has not been revoked ({@link #revoke}: recovery or shrink excluded it);</li>
 *   <li>passes the JDK's PKIX validation ({@link CertPathValidator}) of the one-certificate path to the cluster CA as
 *       the sole trust anchor: signature, validity, and no critical extension PKIX does not know.</li>
 * </ol>
 * The checks before PKIX exist for their messages ("issued by another CA", "expired at ..."); PKIX has the last
 * word.
 * Further certificates in the chain (usually the CA itself) are ignored: trust comes only from the configured CA
 * certificate, never from what the peer sends. Host names are never checked; the member identity replaces them.
 *
 * <p>Thread-safe. Its only state is the revocation list, which only grows.
 */
public final class PeerVerifier {

    /** OID of extended key usage serverAuth. */
    static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
    /** OID of extended key usage clientAuth. */
    static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
    private static final int DIGITAL_SIGNATURE = 0;

    private final X509Certificate ca;
    private final String caFingerprint;
    private final Set<TrustAnchor> anchors;
    /** Revoked member ids, and why: a member excluded from the cluster never comes back with its old identity. */
    private final Map<String, String> revoked = new ConcurrentHashMap<>();

    /**
     * A verifier that trusts {@code clusterCa} alone.
     *
     * @param clusterCa the cluster CA certificate, the only trust anchor
     */
    public PeerVerifier(X509Certificate clusterCa) {
        this.ca = Objects.requireNonNull(clusterCa, "clusterCa");
        this.caFingerprint = ClusterCa.fingerprint(clusterCa);
        this.anchors = Set.of(new TrustAnchor(clusterCa, null));
    }

    /**
     * Revokes {@code memberId}: from now on every chain naming it is refused, whatever its validity, with a message
     * that says {@code why} (for example {@code rank 2 was excluded by the survivors}). Idempotent; the first reason
     * stays.
     */
    public void revoke(String memberId, String why) {
        revoked.putIfAbsent(Objects.requireNonNull(memberId, "memberId"), Objects.requireNonNull(why, "why"));
    }

    /** Whether {@link #revoke} was called for {@code memberId}. */
    public boolean isRevoked(String memberId) {
        return revoked.containsKey(memberId);
    }

    /** The trust anchor. */
    public X509Certificate clusterCa() {
        return ca;
    }

    /**
     * Verifies {@code chain} (leaf first) for any member and returns the member id it names.
     *
     * @throws CertificateException naming what is wrong
     */
    public String verify(List<X509Certificate> chain) throws CertificateException {
        return check(chain, null, null, Instant.now());
    }

    /**
     * Verifies {@code chain} (leaf first) for the member {@code expectedMemberId}.
     *
     * @throws CertificateException naming what is wrong, including a different member identity
     */
    public void verify(List<X509Certificate> chain, String expectedMemberId) throws CertificateException {
        check(chain, Objects.requireNonNull(expectedMemberId, "expectedMemberId"), null, Instant.now());
    }

    /**
     * Verifies {@code chain} as it would be at {@code now}, for {@code expectedMemberId} or (if null) any member.
     *
     * @return the member id the leaf names
     * @throws CertificateException naming what is wrong
     */
    public String verify(List<X509Certificate> chain, String expectedMemberId, Instant now)
            throws CertificateException {
        return check(chain, expectedMemberId, null, now);
    }

    /**
     * Verifies the peer chain of an established TLS session (QUIC or TCP) and returns the peer's member id.
     *
     * @param session the session after its handshake
     * @param expectedMemberId the member expected at this address, or null to accept any member of the cluster
     * @throws CertificateException if the peer presented no certificate, or a chain that fails the checks
     */
    public String verify(SSLSession session, String expectedMemberId) throws CertificateException {
        Certificate[] peer;
        try {
            peer = session.getPeerCertificates();
        } catch (SSLPeerUnverifiedException e) {
            throw new CertificateException("the peer presented no certificate", e);
        }
        return check(x509(peer), expectedMemberId, null, Instant.now());
    }

    /**
     * A trust manager that accepts any member of the cluster in either TLS role (for servers that learn who the
     * peer is from the handshake); check the identity afterwards with {@link #verify(SSLSession, String)}.
     */
    public X509ExtendedTrustManager trustManager() {
        return new MemberTrustManager(this, null);
    }

    /** A trust manager that accepts only {@code expectedMemberId} (for a client dialling a known peer). */
    public X509ExtendedTrustManager trustManager(String expectedMemberId) {
        return new MemberTrustManager(this, Objects.requireNonNull(expectedMemberId, "expectedMemberId"));
    }

    /**
     * The checks, with an optional TLS role ({@link #SERVER_AUTH} or {@link #CLIENT_AUTH}) the leaf must allow.
     */
    String check(List<X509Certificate> chain, String expectedMemberId, String purpose, Instant now)
            throws CertificateException {
        if (chain == null || chain.isEmpty() || chain.getFirst() == null) {
            throw new CertificateException("the peer presented an empty certificate chain");
        }
        X509Certificate leaf = chain.getFirst();
        String who = describe(leaf);
        if (!leaf.getIssuerX500Principal().equals(ca.getSubjectX500Principal())) {
            throw new CertificateException("certificate of " + who + " was issued by "
                    + leaf.getIssuerX500Principal().getName() + ", not by the cluster CA " + caFingerprint + " ("
                    + ca.getSubjectX500Principal().getName() + ")");
        }
        try {
            leaf.verify(ca.getPublicKey());
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new CertificateException("certificate of " + who + " is not signed by the cluster CA "
                    + caFingerprint + " (it names the CA's subject, but another key signed it)", e);
        }
        checkValidity(ca, "the cluster CA " + caFingerprint, now);
        checkValidity(leaf, "certificate of " + who, now);
        if (leaf.getBasicConstraints() >= 0) {
            throw new CertificateException("certificate of " + who + " is a CA certificate, not a member's");
        }
        boolean[] usage = leaf.getKeyUsage();
        if (usage != null && (usage.length <= DIGITAL_SIGNATURE || !usage[DIGITAL_SIGNATURE])) {
            throw new CertificateException("certificate of " + who + " does not allow digitalSignature");
        }
        if (purpose != null) {
            checkPurpose(leaf, who, purpose);
        }
        Optional<String> memberId = MemberIdentity.of(leaf);
        if (memberId.isEmpty()) {
            throw new CertificateException("certificate " + leaf.getSubjectX500Principal().getName()
                    + " does not name exactly one nexar member identity (SAN URI " + MemberIdentity.URI_PREFIX
                    + "<id>)");
        }
        if (expectedMemberId != null && !expectedMemberId.equals(memberId.get())) {
            throw new CertificateException("peer presented the certificate of member " + memberId.get()
                    + ", expected member " + expectedMemberId);
        }
        String revokedBecause = revoked.get(memberId.get());
        if (revokedBecause != null) {
            throw new CertificateException("certificate of " + who + " is revoked: " + revokedBecause
                    + " (a member excluded from the cluster cannot come back with its old identity)");
        }
        validatePkix(leaf, who, now);
        return memberId.get();
    }

    /** The JDK's PKIX validation of the path [leaf] to the cluster CA as the only anchor, at {@code now}. */
    private void validatePkix(X509Certificate leaf, String who, Instant now) throws CertificateException {
        try {
            var params = new PKIXParameters(anchors);
            params.setRevocationEnabled(false); // the cluster's own list (revoke) replaces CRLs and OCSP
            params.setDate(Date.from(now));
            var path = CertificateFactory.getInstance("X.509").generateCertPath(List.of(leaf));
            CertPathValidator.getInstance("PKIX").validate(path, params);
        } catch (CertPathValidatorException e) {
            throw new CertificateException("certificate of " + who + " fails PKIX validation against the cluster CA "
                    + caFingerprint + ": " + e.getMessage(), e);
        } catch (InvalidAlgorithmParameterException | NoSuchAlgorithmException e) {
            throw new CertificateException("PKIX validation is not available in this JDK: " + e, e);
        }
    }

    /** The fingerprint of the trust anchor. */
    String caFingerprint() {
        return caFingerprint;
    }

    static List<X509Certificate> x509(Certificate[] certs) throws CertificateException {
        if (certs == null) {
            throw new CertificateException("the peer presented no certificate");
        }
        X509Certificate[] out = new X509Certificate[certs.length];
        for (int i = 0; i < certs.length; i++) {
            if (!(certs[i] instanceof X509Certificate x)) {
                throw new CertificateException("the peer presented a non-X.509 certificate");
            }
            out[i] = x;
        }
        return Arrays.asList(out);
    }

    private static void checkPurpose(X509Certificate leaf, String who, String purpose) throws CertificateException {
        List<String> eku;
        try {
            eku = leaf.getExtendedKeyUsage();
        } catch (CertificateParsingException e) {
            throw new CertificateException("certificate of " + who + " has a malformed extended key usage", e);
        }
        if (eku != null && !eku.contains(purpose) && !eku.contains("2.5.29.37.0")) {
            throw new CertificateException("certificate of " + who + " does not allow "
                    + (SERVER_AUTH.equals(purpose) ? "serverAuth" : "clientAuth"));
        }
    }

    private static void checkValidity(X509Certificate cert, String what, Instant now) throws CertificateException {
        try {
            cert.checkValidity(Date.from(now));
        } catch (CertificateExpiredException e) {
            throw new CertificateException(what + " expired at " + cert.getNotAfter().toInstant(), e);
        } catch (CertificateNotYetValidException e) {
            throw new CertificateException(what + " is not valid before " + cert.getNotBefore().toInstant(), e);
        }
    }

    private static String describe(X509Certificate leaf) {
        return MemberIdentity.of(leaf).map(id -> "member " + id)
                .orElse(leaf.getSubjectX500Principal().getName());
    }
}
