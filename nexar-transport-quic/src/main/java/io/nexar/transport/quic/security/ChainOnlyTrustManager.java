package io.nexar.transport.quic.security;

import java.net.Socket;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A trust manager whose decision depends on the certificate chain alone: the socket and engine forms delegate to
 * the plain {@code check*Trusted(chain, authType)}, so the JDK's endpoint identification (host names) never runs -
 * nexar identifies peers by member id (docs/design.md section 4).
 */
abstract class ChainOnlyTrustManager extends X509ExtendedTrustManager {

    @Override
    public final void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        checkClientTrusted(chain, authType);
    }

    @Override
    public final void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
            throws CertificateException {
        checkServerTrusted(chain, authType);
    }

    @Override
    public final void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        checkClientTrusted(chain, authType);
    }

    @Override
    public final void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
            throws CertificateException {
        checkServerTrusted(chain, authType);
    }
}
