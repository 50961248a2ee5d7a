package io.nexar;

/**
 * The TLS implementation of the TCP lanes (setting {@link ConfigKey#TLS_ENGINE}).
 * The setting's text is the constant's name in lower case with dashes
 * ({@code boringssl}).
 */
public enum TlsEngine {
    /** BoringSSL when its native library loads on this platform, else the JDK's. */
    AUTO,
    /** BoringSSL through netty-tcnative (native). */
    BORINGSSL,
    /** The JDK's {@code SSLEngine}. */
    JDK;

    /**
     * The setting's text, as the environment, system properties and docs/config.md spell it.
     *
     * @return the name in lower case with dashes, for example {@code jdk}
     */
    public String key() {
        return ConfigKey.choiceKey(this);
    }
}
