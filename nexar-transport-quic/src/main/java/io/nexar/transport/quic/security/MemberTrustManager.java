package io.nexar.transport.quic.security;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The TLS face of {@link PeerVerifier}: trusts only chains issued by the cluster CA, checks the TLS role in the
 * extended key usage and, if one is expected, the member identity. It never checks host names (the identity is the
 * member id, DESIGN.md section 4), whatever endpoint identification algorithm the engine sets.
 */
final class MemberTrustManager extends X509ExtendedTrustManager {

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
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        checkServerTrusted(chain, authType);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        checkServerTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[] {verifier.clusterCa()};
    }
}
