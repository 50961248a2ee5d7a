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
public final class NexarConfig {

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
     * Setting {@link ConfigKey#P2P_TIMEOUT}.
     *
     * @return the deadline of one send or recv; positive
     */
    public Duration p2pTimeout() {
        return (Duration) values.get(ConfigKey.P2P_TIMEOUT);
    }

    /**
     * Setting {@link ConfigKey#CLOSE_TIMEOUT}.
     *
     * @return how long {@code close()} waits for in-flight work before failing it; positive
     */
    public Duration closeTimeout() {
        return (Duration) values.get(ConfigKey.CLOSE_TIMEOUT);
    }

    /**
     * Setting {@link ConfigKey#MAX_FRAME_SIZE}.
     *
     * @return the largest frame accepted on the wire, in bytes; 4KiB to 1GiB
     */
    public long maxFrameBytes() {
        return (Long) values.get(ConfigKey.MAX_FRAME_SIZE);
    }

    /**
     * Setting {@link ConfigKey#CHUNK_SIZE}.
     *
     * @return the size in bytes of the chunks larger point-to-point payloads are split into; at most
     *         {@code maxFrameBytes() - FRAME_HEADROOM_BYTES}
     */
    public long chunkBytes() {
        return (Long) values.get(ConfigKey.CHUNK_SIZE);
    }

    /**
     * Setting {@link ConfigKey#UNEXPECTED_MAX_BYTES}.
     *
     * @return the bound in bytes of the store of messages that arrived before their receive was posted
     */
    public long unexpectedMaxBytes() {
        return (Long) values.get(ConfigKey.UNEXPECTED_MAX_BYTES);
    }

    /**
     * Setting {@link ConfigKey#COLLECTIVE_TIMEOUT}.
     *
     * @return the deadline of one collective operation; positive
     */
    public Duration collectiveTimeout() {
        return (Duration) values.get(ConfigKey.COLLECTIVE_TIMEOUT);
    }

    /**
     * Setting {@link ConfigKey#COLLECTIVE_DETERMINISTIC}.
     *
     * @return whether reductions fold in rank order
     */
    public boolean collectiveDeterministic() {
        return (Boolean) values.get(ConfigKey.COLLECTIVE_DETERMINISTIC);
    }

    /**
     * Setting {@link ConfigKey#COLLECTIVE_VERIFY}.
     *
     * @return whether every collective's call is checked on every rank first
     */
    public boolean collectiveVerify() {
        return (Boolean) values.get(ConfigKey.COLLECTIVE_VERIFY);
    }

    /**
     * Setting {@link ConfigKey#HANG_REPORT_AFTER}.
     *
     * @return how long an operation waits without progress before a hang report; zero for never
     */
    public Duration hangReportAfter() {
        return (Duration) values.get(ConfigKey.HANG_REPORT_AFTER);
    }

    /**
     * Setting {@link ConfigKey#COLLECTIVE_PROBE_AFTER}.
     *
     * @return how long a collective's round waits without progress before it sends fingerprint probes to the ranks
     *         it waits for; zero for never
     */
    public Duration collectiveProbeAfter() {
        return (Duration) values.get(ConfigKey.COLLECTIVE_PROBE_AFTER);
    }

    /**
     * Setting {@link ConfigKey#ALLREDUCE_ALGORITHM}.
     *
     * @return the allreduce algorithm
     */
    public AllReduceAlgorithm allReduceAlgorithm() {
        return (AllReduceAlgorithm) values.get(ConfigKey.ALLREDUCE_ALGORITHM);
    }

    /**
     * Setting {@link ConfigKey#ALLREDUCE_SMALL_SIZE}.
     *
     * @return the largest allreduce buffer, in bytes, of the small-message algorithms under auto
     */
    public long allReduceSmallBytes() {
        return (Long) values.get(ConfigKey.ALLREDUCE_SMALL_SIZE);
    }

    /**
     * Setting {@link ConfigKey#ALLREDUCE_LARGE_SIZE}.
     *
     * @return the smallest allreduce buffer, in bytes, of the pipelined ring under auto
     */
    public long allReduceLargeBytes() {
        return (Long) values.get(ConfigKey.ALLREDUCE_LARGE_SIZE);
    }

    /**
     * Setting {@link ConfigKey#PIPELINE_SEGMENT_SIZE}.
     *
     * @return the segment size in bytes of the pipelined ring
     */
    public long pipelineSegmentBytes() {
        return (Long) values.get(ConfigKey.PIPELINE_SEGMENT_SIZE);
    }

    /**
     * Setting {@link ConfigKey#BROADCAST_ALGORITHM}.
     *
     * @return the broadcast algorithm
     */
    public BroadcastAlgorithm broadcastAlgorithm() {
        return (BroadcastAlgorithm) values.get(ConfigKey.BROADCAST_ALGORITHM);
    }

    /**
     * Setting {@link ConfigKey#BROADCAST_LARGE_SIZE}.
     *
     * @return the smallest broadcast buffer, in bytes, of the pipelined chain under auto
     */
    public long broadcastLargeBytes() {
        return (Long) values.get(ConfigKey.BROADCAST_LARGE_SIZE);
    }

    /**
     * Setting {@link ConfigKey#ALLGATHER_ALGORITHM}.
     *
     * @return the allgather algorithm
     */
    public AllGatherAlgorithm allGatherAlgorithm() {
        return (AllGatherAlgorithm) values.get(ConfigKey.ALLGATHER_ALGORITHM);
    }

    /**
     * Setting {@link ConfigKey#ALLGATHER_SMALL_SIZE}.
     *
     * @return the largest allgather output, in bytes, of recursive doubling under auto
     */
    public long allGatherSmallBytes() {
        return (Long) values.get(ConfigKey.ALLGATHER_SMALL_SIZE);
    }

    /**
     * Setting {@link ConfigKey#BULK}.
     *
     * @return the lanes of point-to-point and collective messages
     */
    public BulkMode bulk() {
        return (BulkMode) values.get(ConfigKey.BULK);
    }

    /**
     * Setting {@link ConfigKey#BULK_THRESHOLD}.
     *
     * @return the smallest message, in bytes, that takes the TCP lanes
     */
    public long bulkThresholdBytes() {
        return (Long) values.get(ConfigKey.BULK_THRESHOLD);
    }

    /**
     * Setting {@link ConfigKey#POLL_WINDOW}.
     *
     * @return how long a waiting thread reads the TCP lanes itself before it sleeps
     */
    public Duration pollWindow() {
        return (Duration) values.get(ConfigKey.POLL_WINDOW);
    }

    /**
     * Setting {@link ConfigKey#TLS_ENGINE}.
     *
     * @return the TLS implementation of the TCP lanes
     */
    public TlsEngine tlsEngine() {
        return (TlsEngine) values.get(ConfigKey.TLS_ENGINE);
    }

    /**
     * Setting {@link ConfigKey#BIND_ADDRESS}.
     *
     * @return the address of the interface the listeners bind (an IP literal without brackets or a host name), or
     *         {@code auto}
     */
    public String bindAddress() {
        return (String) values.get(ConfigKey.BIND_ADDRESS);
    }

    /**
     * Setting {@link ConfigKey#ADVERTISE_ADDRESS}.
     *
     * @return the address the other members dial (an IP literal without brackets or a host name), or {@code auto}
     */
    public String advertiseAddress() {
        return (String) values.get(ConfigKey.ADVERTISE_ADDRESS);
    }

    /**
     * Setting {@link ConfigKey#PORT_RANGE}.
     *
     * @return the ports the QUIC and TCP-lane listeners may bind; {@link PortRange#ANY} for any free port
     */
    public PortRange portRange() {
        return (PortRange) values.get(ConfigKey.PORT_RANGE);
    }

    /**
     * Setting {@link ConfigKey#HEARTBEAT_INTERVAL}.
     *
     * @return how often an idle link carries a heartbeat
     */
    public Duration heartbeatInterval() {
        return (Duration) values.get(ConfigKey.HEARTBEAT_INTERVAL);
    }

    /**
     * Setting {@link ConfigKey#HEARTBEAT_TIMEOUT}.
     *
     * @return after how much silence a peer is declared failed; greater than {@link #heartbeatInterval()}
     */
    public Duration heartbeatTimeout() {
        return (Duration) values.get(ConfigKey.HEARTBEAT_TIMEOUT);
    }

    /**
     * Setting {@link ConfigKey#RECOVERY_POLICY}.
     *
     * @return what a failed rank does to the survivors
     */
    public RecoveryPolicy recoveryPolicy() {
        return (RecoveryPolicy) values.get(ConfigKey.RECOVERY_POLICY);
    }

    /**
     * Setting {@link ConfigKey#WORLD_MIN_SIZE}.
     *
     * @return the fewest ranks a recovery may leave
     */
    public int worldMinSize() {
        return (Integer) values.get(ConfigKey.WORLD_MIN_SIZE);
    }

    /**
     * Setting {@link ConfigKey#RECOVERY_TIMEOUT}.
     *
     * @return the deadline of one agreement on the failed set
     */
    public Duration recoveryTimeout() {
        return (Duration) values.get(ConfigKey.RECOVERY_TIMEOUT);
    }

    /**
     * Setting {@link ConfigKey#WORLD_MAX_SIZE}.
     *
     * @return the most ranks grow() admits up to; at least {@link #worldMinSize()}
     */
    public int worldMaxSize() {
        return (Integer) values.get(ConfigKey.WORLD_MAX_SIZE);
    }

    /**
     * Setting {@link ConfigKey#JOIN_ELASTIC}.
     *
     * @return whether this process joins a running cluster at the members' next grow()
     */
    public boolean joinElastic() {
        return (Boolean) values.get(ConfigKey.JOIN_ELASTIC);
    }

    /**
     * Setting {@link ConfigKey#TOPOLOGY}.
     *
     * @return which ranks connect directly; the others are reached through relays
     */
    public Topology topology() {
        return (Topology) values.get(ConfigKey.TOPOLOGY);
    }

    /**
     * Setting {@link ConfigKey#RPC_TIMEOUT}.
     *
     * @return the deadline of one remote call
     */
    public Duration rpcTimeout() {
        return (Duration) values.get(ConfigKey.RPC_TIMEOUT);
    }

    /**
     * Setting {@link ConfigKey#FORMATION_TIMEOUT}.
     *
     * @return how long {@link Nexar#join()} waits for enrolment and mesh formation; positive
     */
    public Duration formationTimeout() {
        return (Duration) values.get(ConfigKey.FORMATION_TIMEOUT);
    }

    /**
     * Setting {@link ConfigKey#CERT_VALIDITY}.
     *
     * @return how long the member certificates a seed of this process issues are valid; positive
     */
    public Duration certValidity() {
        return (Duration) values.get(ConfigKey.CERT_VALIDITY);
    }

    /**
     * Setting {@link ConfigKey#RPC_MAX_IN_FLIGHT}.
     *
     * @return the most remote calls to one rank in flight at once
     */
    public int rpcMaxInFlight() {
        return (Integer) values.get(ConfigKey.RPC_MAX_IN_FLIGHT);
    }

    /**
     * The same as {@link #recoveryPolicy()}.
     *
     * @return what a failed rank does to the survivors
     */
    public RecoveryPolicy policy() {
        return recoveryPolicy();
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
    public static final class Builder {
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
        public Builder set(ConfigKey key, String text) {
            Objects.requireNonNull(text, "text");
            return put(key, key.parse(key.key(), text), ConfigSource.BUILDER);
        }

        /**
         * Sets {@link ConfigKey#P2P_TIMEOUT}: the deadline of one send or recv.
         *
         * @param timeout positive
         * @return this builder
         * @throws InvalidConfigurationException if not positive
         */
        public Builder p2pTimeout(Duration timeout) {
            return typed(ConfigKey.P2P_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
        }

        /**
         * Sets {@link ConfigKey#CLOSE_TIMEOUT}: how long {@code close()} waits for in-flight work before failing it.
         *
         * @param timeout positive
         * @return this builder
         * @throws InvalidConfigurationException if not positive
         */
        public Builder closeTimeout(Duration timeout) {
            return typed(ConfigKey.CLOSE_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
        }

        /**
         * Sets {@link ConfigKey#MAX_FRAME_SIZE}: the largest frame accepted on the wire.
         *
         * @param bytes from 4KiB to 1GiB
         * @return this builder
         * @throws InvalidConfigurationException if out of range
         */
        public Builder maxFrameBytes(long bytes) {
            return typed(ConfigKey.MAX_FRAME_SIZE, bytes);
        }

        /**
         * Sets {@link ConfigKey#CHUNK_SIZE}: point-to-point payloads larger than this are split in chunks of this
         * size. It must also be at most {@code maxFrameBytes - FRAME_HEADROOM_BYTES}, checked by {@link #build()}.
         *
         * @param bytes from 1KiB to 1GiB
         * @return this builder
         * @throws InvalidConfigurationException if out of range
         */
        public Builder chunkBytes(long bytes) {
            return typed(ConfigKey.CHUNK_SIZE, bytes);
        }

        /**
         * Sets {@link ConfigKey#UNEXPECTED_MAX_BYTES}: the bound of the store of messages that arrived before their
         * receive was posted; senders are back-pressured beyond it.
         *
         * @param bytes from 0 to 2<sup>62</sup>
         * @return this builder
         * @throws InvalidConfigurationException if out of range
         */
        public Builder unexpectedMaxBytes(long bytes) {
            return typed(ConfigKey.UNEXPECTED_MAX_BYTES, bytes);
        }

        /**
         * Sets {@link ConfigKey#COLLECTIVE_TIMEOUT}: the deadline of one collective operation.
         *
         * @param timeout positive
         * @return this builder
         * @throws InvalidConfigurationException if not positive
         */
        public Builder collectiveTimeout(Duration timeout) {
            return typed(ConfigKey.COLLECTIVE_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
        }

        /**
         * Sets {@link ConfigKey#HEARTBEAT_INTERVAL} and {@link ConfigKey#HEARTBEAT_TIMEOUT}: how often peers are sent
         * a heartbeat on an otherwise idle link, and after how much silence a peer is declared failed.
         *
         * @param interval 10ms to 1h
         * @param timeout 20ms to 1h, greater than {@code interval} (checked by {@link #build()})
         * @return this builder
         * @throws InvalidConfigurationException if out of range
         */
        public Builder heartbeat(Duration interval, Duration timeout) {
            typed(ConfigKey.HEARTBEAT_INTERVAL, Objects.requireNonNull(interval, "interval"));
            return typed(ConfigKey.HEARTBEAT_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
        }

        /**
         * Sets {@link ConfigKey#RECOVERY_POLICY}: what a failed rank does to the survivors.
         *
         * @param policy the policy
         * @return this builder
         */
        public Builder recoveryPolicy(RecoveryPolicy policy) {
            return typed(ConfigKey.RECOVERY_POLICY, Objects.requireNonNull(policy, "policy"));
        }

        /**
         * Sets {@link ConfigKey#WORLD_MIN_SIZE}: a recovery that would leave fewer ranks fails instead.
         *
         * @param ranks 1 to 65535
         * @return this builder
         * @throws InvalidConfigurationException if out of range
         */
        public Builder worldMinSize(int ranks) {
            return typed(ConfigKey.WORLD_MIN_SIZE, ranks);
        }

        /**
         * Sets {@link ConfigKey#RECOVERY_TIMEOUT}: the deadline of one agreement on the failed set.
         *
         * @param timeout positive
         * @return this builder
         * @throws InvalidConfigurationException if not positive
         */
        public Builder recoveryTimeout(Duration timeout) {
            return typed(ConfigKey.RECOVERY_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
        }

        /**
         * Sets {@link ConfigKey#WORLD_MAX_SIZE}: grow() admits waiting workers only up to this many ranks.
         *
         * @param ranks 1 to 65535, at least {@link ConfigKey#WORLD_MIN_SIZE}
         * @return this builder
         * @throws InvalidConfigurationException if out of range
         */
        public Builder worldMaxSize(int ranks) {
            return typed(ConfigKey.WORLD_MAX_SIZE, ranks);
        }

        /**
         * Sets {@link ConfigKey#JOIN_ELASTIC}: join a running cluster at the members' next grow().
         *
         * @param elastic true to wait for admission by a running cluster
         * @return this builder
         */
        public Builder joinElastic(boolean elastic) {
            return typed(ConfigKey.JOIN_ELASTIC, elastic);
        }

        /**
         * Sets {@link ConfigKey#TOPOLOGY}: which ranks connect directly.
         *
         * @param topology full-mesh, k-regular:K or hypercube
         * @return this builder
         */
        public Builder topology(Topology topology) {
            return typed(ConfigKey.TOPOLOGY, Objects.requireNonNull(topology, "topology"));
        }

        /**
         * Sets {@link ConfigKey#COLLECTIVE_DETERMINISTIC}: reductions fold every element in rank order.
         *
         * @param deterministic true for rank-order folds
         * @return this builder
         */
        public Builder collectiveDeterministic(boolean deterministic) {
            return typed(ConfigKey.COLLECTIVE_DETERMINISTIC, deterministic);
        }

        /**
         * Sets {@link ConfigKey#COLLECTIVE_VERIFY}: every collective call is checked on every rank before it runs.
         *
         * @param verify true to check every call (debugging; costs one small allgather per call)
         * @return this builder
         */
        public Builder collectiveVerify(boolean verify) {
            return typed(ConfigKey.COLLECTIVE_VERIFY, verify);
        }

        /**
         * Sets {@link ConfigKey#HANG_REPORT_AFTER}: how long an operation waits without progress before the rank
         * reports what it and the ranks it waits for are doing; {@link Duration#ZERO} for never.
         *
         * @param after from 0s to 24h
         * @return this builder
         * @throws InvalidConfigurationException if negative or longer than 24 hours
         */
        public Builder hangReportAfter(Duration after) {
            return typed(ConfigKey.HANG_REPORT_AFTER, Objects.requireNonNull(after, "after"));
        }

        /**
         * Sets {@link ConfigKey#COLLECTIVE_PROBE_AFTER}: how long a collective's round waits without progress
         * before it asks the ranks it waits for whether they run the same call (fingerprint probes, which turn a
         * root mismatch into {@link CollectiveMismatchException} instead of a timeout); {@link Duration#ZERO} for
         * never.
         *
         * @param after from 0s to 24h
         * @return this builder
         * @throws InvalidConfigurationException if negative or longer than 24 hours
         */
        public Builder collectiveProbeAfter(Duration after) {
            return typed(ConfigKey.COLLECTIVE_PROBE_AFTER, Objects.requireNonNull(after, "after"));
        }

        /**
         * Sets {@link ConfigKey#RPC_TIMEOUT}: the deadline of one remote call.
         *
         * @param timeout positive
         * @return this builder
         * @throws InvalidConfigurationException if not positive
         */
        public Builder rpcTimeout(Duration timeout) {
            return typed(ConfigKey.RPC_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
        }

        /**
         * Sets {@link ConfigKey#RPC_MAX_IN_FLIGHT}: the most remote calls to one rank in flight at once.
         *
         * @param calls from 1 to 65536
         * @return this builder
         * @throws InvalidConfigurationException if not in [1, 65536]
         */
        public Builder rpcMaxInFlight(int calls) {
            return typed(ConfigKey.RPC_MAX_IN_FLIGHT, calls);
        }

        /**
         * Sets {@link ConfigKey#ALLREDUCE_ALGORITHM}: the allreduce algorithm.
         *
         * @param algorithm the algorithm
         * @return this builder
         */
        public Builder allReduceAlgorithm(AllReduceAlgorithm algorithm) {
            return typed(ConfigKey.ALLREDUCE_ALGORITHM, Objects.requireNonNull(algorithm, "algorithm"));
        }

        /**
         * Sets {@link ConfigKey#ALLREDUCE_SMALL_SIZE}: allreduce buffers up to this size use the small-message
         * algorithms under auto.
         *
         * @param bytes from 0B
         * @return this builder
         * @throws InvalidConfigurationException if out of range
         */
        public Builder allReduceSmallBytes(long bytes) {
            return typed(ConfigKey.ALLREDUCE_SMALL_SIZE, bytes);
        }

        /**
         * Sets {@link ConfigKey#ALLREDUCE_LARGE_SIZE}: allreduce buffers of at least this size use the pipelined ring
         * under auto.
         *
         * @param bytes from 0B
         * @return this builder
         * @throws InvalidConfigurationException if out of range
         */
        public Builder allReduceLargeBytes(long bytes) {
            return typed(ConfigKey.ALLREDUCE_LARGE_SIZE, bytes);
        }

        /**
         * Sets {@link ConfigKey#PIPELINE_SEGMENT_SIZE}: the segment size of the pipelined ring.
         *
         * @param bytes from 1KiB to 1GiB
         * @return this builder
         * @throws InvalidConfigurationException if out of range
         */
        public Builder pipelineSegmentBytes(long bytes) {
            return typed(ConfigKey.PIPELINE_SEGMENT_SIZE, bytes);
        }

        /**
         * Sets {@link ConfigKey#BROADCAST_ALGORITHM}: the broadcast algorithm.
         *
         * @param algorithm the algorithm
         * @return this builder
         */
        public Builder broadcastAlgorithm(BroadcastAlgorithm algorithm) {
            return typed(ConfigKey.BROADCAST_ALGORITHM, Objects.requireNonNull(algorithm, "algorithm"));
        }

        /**
         * Sets {@link ConfigKey#BROADCAST_LARGE_SIZE}: broadcast buffers of at least this size use the pipelined chain
         * under auto.
         *
         * @param bytes from 0B
         * @return this builder
         * @throws InvalidConfigurationException if out of range
         */
        public Builder broadcastLargeBytes(long bytes) {
            return typed(ConfigKey.BROADCAST_LARGE_SIZE, bytes);
        }

        /**
         * Sets {@link ConfigKey#ALLGATHER_ALGORITHM}: the allgather algorithm.
         *
         * @param algorithm the algorithm
         * @return this builder
         */
        public Builder allGatherAlgorithm(AllGatherAlgorithm algorithm) {
            return typed(ConfigKey.ALLGATHER_ALGORITHM, Objects.requireNonNull(algorithm, "algorithm"));
        }

        /**
         * Sets {@link ConfigKey#ALLGATHER_SMALL_SIZE}: allgather outputs up to this size use recursive doubling under
         * auto.
         *
         * @param bytes from 0B
         * @return this builder
         * @throws InvalidConfigurationException if out of range
         */
        public Builder allGatherSmallBytes(long bytes) {
            return typed(ConfigKey.ALLGATHER_SMALL_SIZE, bytes);
        }

        /**
         * Sets {@link ConfigKey#BULK}: the lanes of point-to-point and collective messages.
         *
         * @param mode the lanes
         * @return this builder
         */
        public Builder bulk(BulkMode mode) {
            return typed(ConfigKey.BULK, Objects.requireNonNull(mode, "mode"));
        }

        /**
         * Sets {@link ConfigKey#BULK_THRESHOLD}: messages of at least this size take the TCP lanes.
         *
         * @param bytes from 0B
         * @return this builder
         * @throws InvalidConfigurationException if out of range
         */
        public Builder bulkThresholdBytes(long bytes) {
            return typed(ConfigKey.BULK_THRESHOLD, bytes);
        }

        /**
         * Sets {@link ConfigKey#POLL_WINDOW}: how long a waiting thread reads the TCP lanes itself before it sleeps.
         *
         * @param window from 0s to 1s
         * @return this builder
         * @throws InvalidConfigurationException if out of range
         */
        public Builder pollWindow(Duration window) {
            return typed(ConfigKey.POLL_WINDOW, Objects.requireNonNull(window, "window"));
        }

        /**
         * Sets {@link ConfigKey#TLS_ENGINE}: the TLS implementation of the TCP lanes.
         *
         * @param engine the engine
         * @return this builder
         */
        public Builder tlsEngine(TlsEngine engine) {
            return typed(ConfigKey.TLS_ENGINE, Objects.requireNonNull(engine, "engine"));
        }

        /**
         * Sets {@link ConfigKey#BIND_ADDRESS}: the interface the QUIC and TCP-lane listeners bind.
         *
         * @param address an IP address, a host name, a wildcard ({@code 0.0.0.0}, {@code ::}) or {@code auto}
         * @return this builder
         * @throws InvalidConfigurationException if it is none of these
         */
        public Builder bindAddress(String address) {
            return set(ConfigKey.BIND_ADDRESS, Objects.requireNonNull(address, "address"));
        }

        /**
         * Sets {@link ConfigKey#ADVERTISE_ADDRESS}: the address the other members dial to reach this process.
         *
         * @param address an IP address, a host name or {@code auto}
         * @return this builder
         * @throws InvalidConfigurationException if it is none of these
         */
        public Builder advertiseAddress(String address) {
            return set(ConfigKey.ADVERTISE_ADDRESS, Objects.requireNonNull(address, "address"));
        }

        /**
         * Sets {@link ConfigKey#PORT_RANGE}: the ports the QUIC and TCP-lane listeners may bind.
         *
         * @param range the ports, or {@link PortRange#ANY}
         * @return this builder
         */
        public Builder portRange(PortRange range) {
            return typed(ConfigKey.PORT_RANGE, Objects.requireNonNull(range, "range"));
        }

        /**
         * Sets {@link ConfigKey#HEARTBEAT_INTERVAL}: how often an idle link carries a heartbeat; below the heartbeat
         * timeout (checked by {@link #build()}).
         *
         * @param interval from 10ms to 1h
         * @return this builder
         * @throws InvalidConfigurationException if out of range
         */
        public Builder heartbeatInterval(Duration interval) {
            return typed(ConfigKey.HEARTBEAT_INTERVAL, Objects.requireNonNull(interval, "interval"));
        }

        /**
         * Sets {@link ConfigKey#HEARTBEAT_TIMEOUT}: after how much silence a peer is declared failed; above the
         * heartbeat interval (checked by {@link #build()}).
         *
         * @param timeout from 20ms to 1h
         * @return this builder
         * @throws InvalidConfigurationException if out of range
         */
        public Builder heartbeatTimeout(Duration timeout) {
            return typed(ConfigKey.HEARTBEAT_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
        }

        /**
         * Sets {@link ConfigKey#FORMATION_TIMEOUT}: how long {@link Nexar#join()} waits for enrolment and mesh
         * formation.
         *
         * @param timeout positive
         * @return this builder
         * @throws InvalidConfigurationException if not positive
         */
        public Builder formationTimeout(Duration timeout) {
            return typed(ConfigKey.FORMATION_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
        }

        /**
         * Sets {@link ConfigKey#CERT_VALIDITY}: how long the member certificates a seed of this process issues are
         * valid.
         *
         * @param validity the validity; positive
         * @return this builder
         * @throws InvalidConfigurationException if not positive
         */
        public Builder certValidity(Duration validity) {
            return typed(ConfigKey.CERT_VALIDITY, Objects.requireNonNull(validity, "validity"));
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

        private Builder typed(ConfigKey key, Object value) {
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
