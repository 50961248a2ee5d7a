package io.nexar.transport.quic.security;

import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Instant;

/**
 * The TLS face of {@link PeerVerifier}: trusts only chains issued by the cluster CA, checks the TLS role in the
 * extended key usage and, if one is expected, the member identity. It never checks host names (the identity is the
 * member id, docs/design.md section 4), whatever endpoint identification algorithm the engine sets.
 */
final class MemberTrustManager extends ChainOnlyTrustManager {

    private final PeerVerifier verifier;
    private final String expectedMemberId;

    MemberTrustManager(PeerVerifier verifier, String expectedMemberId) {
        this.verifier = verifier;
        this.expectedMemberId = expectedMemberId;
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        verifier.check(PeerVerifier.x509(chain), expectedMemberId, PeerVerifier.CLIENT_AUTH, Instant.now());
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
        verifier.check(PeerVerifier.x509(chain), expectedMemberId, PeerVerifier.SERVER_AUTH, Instant.now());
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[] {verifier.clusterCa()};
    }
}
