package io.nexar.transport.quic.security;

import io.nexar.transport.quic.MemberIdentity;
import java.security.GeneralSecurityException;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
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
 *   <li>names exactly one member identity ({@link MemberIdentity}), equal to the expected one if one is given.</li>
 * </ol>
 * Further certificates in the chain (usually the CA itself) are ignored: trust comes only from the configured CA
 * certificate, never from what the peer sends. Host names are never checked; the member identity replaces them.
 *
 * <p>Immutable and thread-safe.
 */
public final class PeerVerifier {

    /** OID of extended key usage serverAuth. */
    static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
    /** OID of extended key usage clientAuth. */
    static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
    private static final int DIGITAL_SIGNATURE = 0;

    private final X509Certificate ca;
    private final String caFingerprint;

    /**
     * A verifier that trusts {@code clusterCa} alone.
     *
     * @param clusterCa the cluster CA certificate, the only trust anchor
     */
    public PeerVerifier(X509Certificate clusterCa) {
        this.ca = Objects.requireNonNull(clusterCa, "clusterCa");
        this.caFingerprint = ClusterCa.fingerprint(clusterCa);
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
        return memberId.get();
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
