package io.nexar;

import io.nexar.internal.config.Units;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;

/**
 * nexar's configuration: immutable, validated on construction, and aware of where each value came from. Each
 * component is one {@link ConfigKey}; {@code docs/config.md} lists them all with their defaults and bounds.
 *
 * <p>Values are resolved with this precedence, lowest first: the key's default, its environment variable
 * ({@code NEXAR_P2P_TIMEOUT}), its system property ({@code nexar.p2p.timeout}), then {@link Builder} calls. Only the
 * winning value of a key is read. A malformed or out-of-range value is fatal: building throws
 * {@link InvalidConfigurationException} naming the variable as the user wrote it, the value and the expected form,
 * for example {@code configure failed: NEXAR_P2P_TIMEOUT="30x": expected a duration such as 500ms or 30s}.
 * Names are strict too: a {@code NEXAR_*} environment variable or {@code nexar.*} system property that is not a
 * setting (nor one of the launch variables such as {@code NEXAR_JOIN}) fails the build naming it and the closest
 * setting, for example {@code system property nexar.p2p.timout is not a nexar setting; did you mean
 * nexar.p2p.timeout?}.
 *
 * <p>Instances are immutable and safe to share between threads. Two configurations are equal when their values
 * <em>and</em> sources are equal. There is no public constructor: settings are added over time, so a configuration
 * is made by {@link #builder()}, {@link #defaults()}, {@link #fromEnvironment()} or {@link #toBuilder()}, and read
 * through one accessor per key.
 */
public final class NexarConfig extends ConfigAccessors {

    /**
     * Bytes of a frame kept for the headers of a data chunk: {@code chunkBytes} must be at most
     * {@code maxFrameBytes - FRAME_HEADROOM_BYTES}, so a full chunk always fits in one frame.
     */
    public static final long FRAME_HEADROOM_BYTES = 64;

    private final Map<ConfigKey, Object> values;
    private final Map<ConfigKey, ConfigSource> sources;

    /**
     * Validates every value and the invariants between them.
     *
     * @param values a value of each key, of the key's type
     * @param sources where each value came from; keys missing are reported as {@link ConfigSource#BUILDER}
     * @throws InvalidConfigurationException if a value is out of its key's range, or {@code chunkBytes} exceeds
     *         {@code maxFrameBytes - FRAME_HEADROOM_BYTES}; the message names the settings as their sources name
     *         them, and their values
     */
    private NexarConfig(Map<ConfigKey, Object> values, Map<ConfigKey, ConfigSource> sources) {
        this.sources = copyOf(sources);
        var copy = new EnumMap<ConfigKey, Object>(ConfigKey.class);
        for (var key : ConfigKey.values()) {
            Object value = Objects.requireNonNull(values.get(key), key.key());
            check(key, value, this.sources);
            copy.put(key, value);
        }
        this.values = Collections.unmodifiableMap(copy);
        if (worldMaxSize() < worldMinSize()) {
            throw new InvalidConfigurationException(setting(ConfigKey.WORLD_MAX_SIZE, this.sources),
                    String.valueOf(worldMaxSize()), "a number of ranks of at least "
                            + setting(ConfigKey.WORLD_MIN_SIZE, this.sources) + " " + worldMinSize());
        }
        if (heartbeatTimeout().compareTo(heartbeatInterval()) <= 0) {
            throw new InvalidConfigurationException(setting(ConfigKey.HEARTBEAT_TIMEOUT, this.sources),
                    Units.formatDuration(heartbeatTimeout()), "a duration greater than "
                            + setting(ConfigKey.HEARTBEAT_INTERVAL, this.sources) + " "
                            + Units.formatDuration(heartbeatInterval()));
        }
        long relayRoom = topology().kind() == Topology.Kind.FULL_MESH ? 0
                : io.nexar.internal.protocol.WireFormat.RELAY_ENVELOPE_BYTES;
        if (relayRoom > 0 && chunkBytes() <= maxFrameBytes() - FRAME_HEADROOM_BYTES
                && chunkBytes() > maxFrameBytes() - FRAME_HEADROOM_BYTES - relayRoom) {
            throw new InvalidConfigurationException(setting(ConfigKey.CHUNK_SIZE, this.sources),
                    Units.formatSize(chunkBytes()),
                    "a size of at most " + Units.formatSize(maxFrameBytes() - FRAME_HEADROOM_BYTES - relayRoom) + " ("
                            + setting(ConfigKey.MAX_FRAME_SIZE, this.sources) + " " + Units.formatSize(maxFrameBytes())
                            + " minus " + Units.formatSize(FRAME_HEADROOM_BYTES + relayRoom) + " of frame and relay"
                            + " headers with " + setting(ConfigKey.TOPOLOGY, this.sources) + " " + topology() + ")");
        }
        if (chunkBytes() > maxFrameBytes() - FRAME_HEADROOM_BYTES) {
            throw new InvalidConfigurationException(setting(ConfigKey.CHUNK_SIZE, this.sources),
                    Units.formatSize(chunkBytes()),
                    "a size of at most " + Units.formatSize(maxFrameBytes() - FRAME_HEADROOM_BYTES) + " ("
                            + setting(ConfigKey.MAX_FRAME_SIZE, this.sources) + " " + Units.formatSize(maxFrameBytes())
                            + " minus " + Units.formatSize(FRAME_HEADROOM_BYTES) + " of frame headers)");
        }
    }

    /**
     * Where each value came from.
     *
     * @return an unmodifiable map with every key, ordered by key
     */
    public Map<ConfigKey, ConfigSource> sources() {
        return sources;
    }

    /**
     * The built-in defaults only; the environment and system properties are not read.
     *
     * @return the default configuration
     */
    public static NexarConfig defaults() {
        return builder().ignoreEnvironment().build();
    }

    /**
     * The defaults, overridden by {@code NEXAR_*} environment variables ({@link System#getenv()}), overridden by
     * {@code nexar.*} system properties ({@link System#getProperties()}).
     *
     * @return the configuration
     * @throws InvalidConfigurationException if a variable or property of a key is malformed or out of range, or a
     *         {@code NEXAR_*} variable or {@code nexar.*} property is not a setting (a misspelling): the message names
     *         it and the closest setting
     */
    public static NexarConfig fromEnvironment() {
        return builder().build();
    }

    /**
     * A builder that reads the process environment and system properties (at the time of this call) under its own
     * calls; replace them with {@link Builder#environment}, {@link Builder#systemProperties} or
     * {@link Builder#ignoreEnvironment()}.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder(System.getenv(), snapshot(System.getProperties()));
    }

    /**
     * A builder holding this configuration's values with their sources, and no environment or system properties.
     * Its {@link Builder#build()} returns a configuration equal to this one; setters then override single keys. The
     * values count as set on the builder, so an {@link Builder#environment environment} given afterwards only affects
     * keys that still have their default.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        var b = new Builder(Map.of(), Map.of());
        for (var key : ConfigKey.values()) {
            if (source(key) != ConfigSource.DEFAULT) {
                b.put(key, value(key), source(key));
            }
        }
        return b;
    }

    /**
     * Where the value of a key came from.
     *
     * @param key a key
     * @return its source, never null
     */
    public ConfigSource source(ConfigKey key) {
        return sources.get(key);
    }

    /**
     * The effective configuration, one line per key in table order: key name, value with units and source, in
     * aligned columns without trailing blanks or final line break, for example
     *
     * <pre>
     * p2p.timeout           30s     env NEXAR_P2P_TIMEOUT
     * max.frame.size        16MiB   default
     * </pre>
     *
     * <p>{@code nexar info} prints it, and a node logs it once at start.
     *
     * @return the table
     */
    public String describe() {
        int keyWidth = 0;
        int valueWidth = 0;
        for (var key : ConfigKey.values()) {
            keyWidth = Math.max(keyWidth, key.key().length());
            valueWidth = Math.max(valueWidth, key.type().format(value(key)).length());
        }
        var sb = new StringBuilder();
        for (var key : ConfigKey.values()) {
            if (!sb.isEmpty()) {
                sb.append('\n');
            }
            String value = key.type().format(value(key));
            sb.append(key.key()).append(" ".repeat(keyWidth - key.key().length() + 2))
                    .append(value).append(" ".repeat(valueWidth - value.length() + 2))
                    .append(source(key).describe(key));
        }
        return sb.toString();
    }

    /**
     * The value of a key, boxed: {@link Duration}, {@link Long} bytes, {@link Integer}, {@link Boolean}, or the
     * constant of the key's enum.
     */
    @Override
    Object value(ConfigKey key) {
        return values.get(key);
    }

    /**
     * Equal when every value and every source is equal.
     *
     * @param o another object
     * @return whether {@code o} is a configuration with the same values from the same sources
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof NexarConfig other && values.equals(other.values) && sources.equals(other.sources);
    }

    @Override
    public int hashCode() {
        return 31 * values.hashCode() + sources.hashCode();
    }

    /**
     * Every key with its value and source, in table order, for example
     * {@code NexarConfig[p2p.timeout=30s (default), chunk.size=1MiB (builder), ...]}.
     *
     * @return the text
     */
    @Override
    public String toString() {
        var sb = new StringBuilder("NexarConfig[");
        for (var key : ConfigKey.values()) {
            if (key.ordinal() > 0) {
                sb.append(", ");
            }
            sb.append(key.key()).append('=').append(key.type().format(value(key)))
                    .append(" (").append(source(key).describe(key)).append(')');
        }
        return sb.append(']').toString();
    }

    private static void check(ConfigKey key, Object value, Map<ConfigKey, ConfigSource> sources) {
        key.check(setting(key, sources), key.type().format(value), value);
    }

    private static String setting(ConfigKey key, Map<ConfigKey, ConfigSource> sources) {
        return sources.get(key).settingName(key);
    }

    private static Map<ConfigKey, ConfigSource> copyOf(Map<ConfigKey, ConfigSource> sources) {
        Objects.requireNonNull(sources, "sources");
        var copy = new EnumMap<ConfigKey, ConfigSource>(ConfigKey.class);
        for (var key : ConfigKey.values()) {
            copy.put(key, Objects.requireNonNullElse(sources.get(key), ConfigSource.BUILDER));
        }
        return Collections.unmodifiableMap(copy);
    }

    private static Map<String, String> snapshot(Properties properties) {
        var map = new HashMap<String, String>();
        for (var name : properties.stringPropertyNames()) {
            map.put(name, properties.getProperty(name));
        }
        return Map.copyOf(map);
    }

    /**
     * Builds a {@link NexarConfig}. Each key takes, in increasing precedence, its default, its environment variable,
     * its system property, then the last value given to this builder. Environment and system properties are read in
     * {@link #build()}, and only for keys this builder did not set. Not thread-safe.
     */
    public static final class Builder extends BuilderSetters {
        private Map<String, String> environment;
        private Map<String, String> systemProperties;
        private final EnumMap<ConfigKey, Object> values = new EnumMap<>(ConfigKey.class);
        private final EnumMap<ConfigKey, ConfigSource> valueSources = new EnumMap<>(ConfigKey.class);

        private Builder(Map<String, String> environment, Map<String, String> systemProperties) {
            this.environment = environment;
            this.systemProperties = systemProperties;
        }

        /**
         * Reads environment variables from this map instead of the process environment.
         *
         * @param environment variable names to values, for example {@code NEXAR_P2P_TIMEOUT=10s}; copied
         * @return this builder
         */
        public Builder environment(Map<String, String> environment) {
            this.environment = Map.copyOf(environment);
            return this;
        }

        /**
         * Reads system properties from this map instead of {@link System#getProperties()}.
         *
         * @param systemProperties property names to values, for example {@code nexar.p2p.timeout=10s}; copied
         * @return this builder
         */
        public Builder systemProperties(Map<String, String> systemProperties) {
            this.systemProperties = Map.copyOf(systemProperties);
            return this;
        }

        /**
         * Reads system properties from these properties instead of {@link System#getProperties()}.
         *
         * @param systemProperties the properties; their string entries are copied now
         * @return this builder
         */
        public Builder systemProperties(Properties systemProperties) {
            this.systemProperties = snapshot(systemProperties);
            return this;
        }

        /**
         * Reads neither environment variables nor system properties: keys this builder does not set take their
         * defaults.
         *
         * @return this builder
         */
        public Builder ignoreEnvironment() {
            this.environment = Map.of();
            this.systemProperties = Map.of();
            return this;
        }

        /**
         * Sets a key from text, as a command-line flag would, for example {@code set(ConfigKey.CHUNK_SIZE, "1MiB")}.
         *
         * @param key the key
         * @param text the value in the key's syntax ({@code docs/config.md})
         * @return this builder
         * @throws InvalidConfigurationException if the text is malformed or out of the key's range; the message names
         *         the key, for example {@code chunk.size="1x": expected a size such as 64KiB or 16MiB}
         */
        @Override
        public Builder set(ConfigKey key, String text) {
            Objects.requireNonNull(text, "text");
            return put(key, key.parse(key.key(), text), ConfigSource.BUILDER);
        }

        /**
         * Resolves every key and validates the result.
         *
         * @return the configuration
         * @throws InvalidConfigurationException if an environment variable or system property of a key is malformed
         *         or out of range, the values break an invariant between keys, or a {@code NEXAR_*} variable or
         *         {@code nexar.*} property is not a setting (nor one of the launch variables docs/config.md lists)
         */
        public NexarConfig build() {
            SettingNames.check(environment, systemProperties);
            var resolved = new EnumMap<ConfigKey, Object>(ConfigKey.class);
            var sources = new EnumMap<ConfigKey, ConfigSource>(ConfigKey.class);
            for (var key : ConfigKey.values()) {
                if (values.containsKey(key)) {
                    resolved.put(key, values.get(key));
                    sources.put(key, valueSources.get(key));
                } else if (systemProperties.containsKey(key.systemProperty())) {
                    resolved.put(key, key.parse(key.systemProperty(), systemProperties.get(key.systemProperty())));
                    sources.put(key, ConfigSource.SYSTEM_PROPERTY);
                } else if (environment.containsKey(key.envVar())) {
                    resolved.put(key, key.parse(key.envVar(), environment.get(key.envVar())));
                    sources.put(key, ConfigSource.ENVIRONMENT);
                } else {
                    resolved.put(key, key.parsedDefault());
                    sources.put(key, ConfigSource.DEFAULT);
                }
            }
            return new NexarConfig(resolved, sources);
        }

        @Override
        Builder typed(ConfigKey key, Object value) {
            key.check(key.key(), key.type().format(value), value);
            return put(key, value, ConfigSource.BUILDER);
        }

        private Builder put(ConfigKey key, Object value, ConfigSource source) {
            values.put(key, value);
            valueSources.put(key, source);
            return this;
        }
    }
}
