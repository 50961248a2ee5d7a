package io.nexar;

/**
 * Which lanes carry point-to-point and collective messages (setting {@link ConfigKey#BULK}).
 * The setting's text is the constant's name in lower case with dashes
 * ({@code tcp-plain}).
 */
public enum BulkMode {
    /** Two TCP connections per pair, one per lane, each with mutual TLS 1.3. */
    TLS,
    /** Unencrypted TCP connections, logged as a warning; for isolated networks only. */
    TCP_PLAIN,
    /** Everything on QUIC. */
    QUIC;

    /**
     * The setting's text, as the environment, system properties and docs/config.md spell it.
     *
     * @return the name in lower case with dashes, for example {@code quic}
     */
    public String key() {
        return ConfigKey.choiceKey(this);
    }
}
