package io.nexar.transport.quic.security;

import io.nexar.transport.quic.MemberCredentials;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Provider;
import java.security.cert.X509Certificate;
import java.util.Objects;
import java.util.function.Supplier;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.KeyManagerFactorySpi;
import javax.net.ssl.ManagerFactoryParameters;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.TrustManagerFactorySpi;

/**
 * TLS key and trust material for peer links, for the JDK's TLS (the TCP bulk lane, enrolment) and for Netty's QUIC
 * builders, which take the same {@link KeyManagerFactory} and {@link TrustManagerFactory}.
 *
 * <p>Every link is TLS 1.3 with mutual authentication: a server requires a client certificate
 * ({@link #serverParameters()}); both sides trust only the cluster CA ({@link PeerVerifier}). There is no mode that
 * skips verification.
 *
 * <p>Stateless and thread-safe; each call returns new objects.
 */
public final class TlsMaterial {

    /** The only TLS version nexar speaks. */
    public static final String TLS_VERSION = "TLSv1.3";
    private static final Provider PROVIDER = new Provider("nexar", "1", "nexar member key and trust managers") { };

    private TlsMaterial() {
    }

    /**
     * A key manager factory that presents {@code credentials}' chain and key in either TLS role. It presents them even
     * when the peer asks for another issuer, so that the peer refuses with a clear reason rather than seeing no
     * certificate at all.
     */
    public static KeyManagerFactory keyManagerFactory(MemberCredentials credentials) {
        Objects.requireNonNull(credentials, "credentials");
        return keyManagerFactory(() -> credentials);
    }

    /**
     * A key manager factory that presents, at each handshake, the chain and key {@code credentials} gives then: a
     * member whose certificate was renewed presents the new one in every later handshake.
     *
     * @param credentials the member's current credentials (the same private key and member id at every call)
     * @return a factory whose one key manager reads {@code credentials} at every handshake
     */
    public static KeyManagerFactory keyManagerFactory(Supplier<MemberCredentials> credentials) {
        Objects.requireNonNull(credentials, "credentials");
        KeyManager manager = new MemberKeyManager(credentials);
        return new KeyManagerFactory(new KeyManagerFactorySpi() {
            @Override
            protected void engineInit(KeyStore ks, char[] password) {
            }

            @Override
            protected void engineInit(ManagerFactoryParameters spec) {
            }

            @Override
            protected KeyManager[] engineGetKeyManagers() {
                return new KeyManager[] {manager};
            }
        }, PROVIDER, "nexar-member") { };
    }

    /** A trust manager factory that accepts any member of the cluster of {@code clusterCa} (see {@link PeerVerifier}). */
    public static TrustManagerFactory trustManagerFactory(X509Certificate clusterCa) {
        return factory(new PeerVerifier(clusterCa).trustManager());
    }

    /** A trust manager factory that accepts any member {@code verifier} accepts (its revocations included). */
    public static TrustManagerFactory trustManagerFactory(PeerVerifier verifier) {
        return factory(verifier.trustManager());
    }

    /** A trust manager factory that accepts only {@code expectedMemberId}, issued by {@code clusterCa}. */
    public static TrustManagerFactory trustManagerFactory(X509Certificate clusterCa, String expectedMemberId) {
        return factory(new PeerVerifier(clusterCa).trustManager(expectedMemberId));
    }

    /**
     * A TLS 1.3 context presenting {@code credentials} and trusting any member of its cluster. For a server socket or
     * engine, also apply {@link #serverParameters()} so that the client must present a certificate.
     */
    public static SSLContext sslContext(MemberCredentials credentials) {
        return sslContext(credentials, trustManagerFactory(credentials.clusterCa()));
    }

    /** A TLS 1.3 context presenting {@code credentials} and trusting only {@code expectedMemberId}. */
    public static SSLContext sslContext(MemberCredentials credentials, String expectedMemberId) {
        return sslContext(credentials, trustManagerFactory(credentials.clusterCa(), expectedMemberId));
    }

    /** A TLS 1.3 context from explicit key and trust material (either may be null: no key, or no trust). */
    public static SSLContext sslContext(MemberCredentials credentials, TrustManagerFactory trust) {
        return renewableSslContext(credentials == null ? null : () -> credentials, trust);
    }

    /**
     * A TLS 1.3 context presenting the credentials {@code credentials} gives at each handshake (null: no key).
     *
     * @param credentials the member's current credentials, or null
     * @param trust the trust material, or null
     * @return a new context
     */
    public static SSLContext renewableSslContext(Supplier<MemberCredentials> credentials, TrustManagerFactory trust) {
        try {
            SSLContext context = SSLContext.getInstance(TLS_VERSION);
            KeyManager[] keys = credentials == null ? null : keyManagerFactory(credentials).getKeyManagers();
            context.init(keys, trust == null ? null : trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK cannot create a " + TLS_VERSION + " context", e);
        }
    }

    /**
     * A TLS 1.3 client context for enrolment: no key of its own (the worker has no certificate yet), and trust only
     * in a seed whose chain passes {@code pinned}.
     */
    public static SSLContext sslContext(PinnedCaTrustManager pinned) {
        return sslContext(null, factory(Objects.requireNonNull(pinned, "pinned")));
    }

    /** Parameters for a server end: TLS 1.3 only, client certificate required. */
    public static SSLParameters serverParameters() {
        var p = new SSLParameters();
        p.setProtocols(new String[] {TLS_VERSION});
        p.setNeedClientAuth(true);
        return p;
    }

    /** Parameters for a client end: TLS 1.3 only. Host names are not checked; the trust manager checks identity. */
    public static SSLParameters clientParameters() {
        var p = new SSLParameters();
        p.setProtocols(new String[] {TLS_VERSION});
        return p;
    }

    /** Creates an engine from {@code context} for one end of a mutual TLS 1.3 link. */
    public static SSLEngine engine(SSLContext context, boolean server) {
        SSLEngine engine = context.createSSLEngine();
        engine.setUseClientMode(!server);
        engine.setSSLParameters(server ? serverParameters() : clientParameters());
        return engine;
    }

    /** Wraps trust managers in a factory, for APIs (such as Netty's) that take a factory. */
    static TrustManagerFactory factory(TrustManager... managers) {
        return new FixedTrustManagerFactory(managers.clone());
    }

    /** A factory that always returns the same managers, whatever it is initialised with. */
    private static final class FixedTrustManagerFactory extends TrustManagerFactory {
        FixedTrustManagerFactory(TrustManager[] managers) {
            super(new TrustManagerFactorySpi() {
                @Override
                protected void engineInit(KeyStore ks) {
                }

                @Override
                protected void engineInit(ManagerFactoryParameters spec) {
                }

                @Override
                protected TrustManager[] engineGetTrustManagers() {
                    return managers.clone();
                }
            }, PROVIDER, "nexar-member");
        }
    }
}
