package io.nexar.transport.quic.bulk;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.nexar.ConfigKey;
import io.nexar.InvalidConfigurationException;
import io.nexar.transport.quic.MemberCredentials;
import io.nexar.transport.quic.security.TlsMaterial;
import java.util.List;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;

/**
 * Makes the {@link SSLEngine}s of one process's TCP lanes: mutual TLS 1.3 with the cluster CA and the member-identity
 * checks of {@link io.nexar.transport.quic.security.PeerVerifier}, through BoringSSL (netty-tcnative's OpenSSL
 * engine, native) or the JDK's engine. Which one is chosen once per process (setting {@code tls.engine}); both speak
 * standard TLS 1.3, so the two ends of a pair may use different engines.
 *
 * <p>BoringSSL engines are given direct buffers (they hand them to native code without a copy), JDK engines heap
 * buffers (its AES-GCM runs faster on them): {@link #directBuffers()}.
 */
public final class LaneTls {
    /** AES-128-GCM first: the fastest on both engines with AES and carry-less multiply instructions. */
    private static final List<String> CIPHERS = List.of("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
            "TLS_CHACHA20_POLY1305_SHA256");

    /** The TLS implementations {@code tls.engine} names. */
    enum Engine {
        BORINGSSL, JDK
    }

    private final Engine engine;
    /** Read at each handshake (the key managers read it too): a renewed certificate serves every later lane. */
    private final Supplier<MemberCredentials> credentials;
    private final SslContext nativeServer;
    private final SSLContext jdkServer;

    private LaneTls(Engine engine, Supplier<MemberCredentials> credentials) throws SSLException {
        this.engine = engine;
        this.credentials = credentials;
        if (engine == Engine.BORINGSSL) {
            nativeServer = SslContextBuilder.forServer(TlsMaterial.keyManagerFactory(credentials))
                    .trustManager(TlsMaterial.trustManagerFactory(credentials.get().clusterCa()))
                    .clientAuth(ClientAuth.REQUIRE).sslProvider(SslProvider.OPENSSL)
                    .protocols(TlsMaterial.TLS_VERSION).ciphers(CIPHERS).build();
            jdkServer = null;
        } else {
            nativeServer = null;
            jdkServer = TlsMaterial.renewableSslContext(credentials,
                    TlsMaterial.trustManagerFactory(credentials.get().clusterCa()));
        }
    }

    /**
     * The lanes' TLS for this process.
     *
     * @param setting the value of {@code tls.engine}: auto, boringssl or jdk
     * @throws InvalidConfigurationException if {@code boringssl} is asked for and its native library does not load
     */
    static LaneTls create(String setting, MemberCredentials credentials) {
        return create(setting, () -> credentials);
    }

    /** The lanes' TLS for this process, presenting the credentials {@code credentials} holds at each handshake. */
    static LaneTls create(String setting, Supplier<MemberCredentials> credentials) {
        Engine e = choose(setting);
        try {
            return new LaneTls(e, credentials);
        } catch (SSLException | RuntimeException failure) {
            if (e == Engine.BORINGSSL && !"boringssl".equals(setting)) {
                return create("jdk", credentials); // auto: the native engine refused this key; the JDK's will do
            }
            throw new IllegalStateException("cannot create the TCP lanes' TLS context (" + e + "): " + failure,
                    failure);
        }
    }

    /** The engine {@code setting} selects on this platform. */
    static Engine choose(String setting) {
        return switch (setting) {
            case "jdk" -> Engine.JDK;
            case "boringssl" -> {
                if (!OpenSsl.isAvailable()) {
                    throw new InvalidConfigurationException(ConfigKey.TLS_ENGINE.key(), setting, "auto or jdk:"
                            + " BoringSSL (netty-tcnative) does not load on this platform ("
                            + OpenSsl.unavailabilityCause() + ")");
                }
                yield Engine.BORINGSSL;
            }
            default -> OpenSsl.isAvailable() ? Engine.BORINGSSL : Engine.JDK;
        };
    }

    /** One line on the TLS engine {@code setting} picks here, for {@code nexar info}. */
    public static String describe(String setting) {
        try {
            Engine e = choose(setting);
            return name(e) + (e == Engine.JDK && !OpenSsl.isAvailable() ? " (BoringSSL does not load: "
                    + OpenSsl.unavailabilityCause() + ")" : "");
        } catch (InvalidConfigurationException e) {
            return e.getMessage();
        }
    }

    /** The engine this process's lanes use, named for the first log line. */
    String describe() {
        return name(engine);
    }

    private static String name(Engine e) {
        return e == Engine.BORINGSSL ? "BoringSSL (" + OpenSsl.versionString() + ", netty-tcnative)"
                : "the JDK's SSLEngine";
    }

    /** True if this engine wants direct buffers (BoringSSL), false for heap buffers (JDK). */
    boolean directBuffers() {
        return engine == Engine.BORINGSSL;
    }

    /** An engine for an accepted connection: any member of the cluster; its identity is checked after the handshake. */
    SSLEngine serverEngine() {
        if (nativeServer != null) {
            return nativeServer.newEngine(UnpooledByteBufAllocator.DEFAULT);
        }
        return jdkEngine(jdkServer, true);
    }

    /** An engine that dials {@code expectedMemberId}: the handshake fails unless the server is that member. */
    SSLEngine clientEngine(String expectedMemberId) {
        if (engine == Engine.BORINGSSL) {
            try {
                return SslContextBuilder.forClient().keyManager(TlsMaterial.keyManagerFactory(credentials))
                        .trustManager(TlsMaterial.trustManagerFactory(credentials.get().clusterCa(),
                                expectedMemberId))
                        .sslProvider(SslProvider.OPENSSL).protocols(TlsMaterial.TLS_VERSION).ciphers(CIPHERS).build()
                        .newEngine(UnpooledByteBufAllocator.DEFAULT);
            } catch (SSLException e) {
                throw new IllegalStateException("cannot create a BoringSSL client context: " + e, e);
            }
        }
        return jdkEngine(TlsMaterial.renewableSslContext(credentials,
                TlsMaterial.trustManagerFactory(credentials.get().clusterCa(), expectedMemberId)), false);
    }

    private static SSLEngine jdkEngine(SSLContext context, boolean server) {
        SSLEngine e = TlsMaterial.engine(context, server);
        e.setEnabledCipherSuites(CIPHERS.toArray(String[]::new));
        return e;
    }
}
