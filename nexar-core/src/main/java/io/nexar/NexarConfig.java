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
 * <em>and</em> sources are equal.
 *
 * @param p2pTimeout deadline of one send or recv ({@link ConfigKey#P2P_TIMEOUT}); positive
 * @param closeTimeout how long {@code close()} waits for in-flight work before failing it
 *        ({@link ConfigKey#CLOSE_TIMEOUT}); positive
 * @param maxFrameBytes largest frame accepted on the wire, in bytes ({@link ConfigKey#MAX_FRAME_SIZE}); 4KiB to 1GiB
 * @param chunkBytes size in bytes of the chunks larger point-to-point payloads are split into
 *        ({@link ConfigKey#CHUNK_SIZE}); 1KiB to 1GiB and at most {@code maxFrameBytes - FRAME_HEADROOM_BYTES}
 * @param unexpectedMaxBytes bound in bytes of the store of messages that arrived before their receive was posted
 *        ({@link ConfigKey#UNEXPECTED_MAX_BYTES}); 0 to 2<sup>62</sup>
 * @param collectiveTimeout deadline of one collective operation ({@link ConfigKey#COLLECTIVE_TIMEOUT}); positive
 * @param collectiveDeterministic reductions fold in rank order ({@link ConfigKey#COLLECTIVE_DETERMINISTIC})
 * @param collectiveVerify every collective's call is checked on every rank first ({@link ConfigKey#COLLECTIVE_VERIFY})
 * @param hangReportAfter {@link ConfigKey#HANG_REPORT_AFTER}
 * @param allReduceAlgorithm {@link ConfigKey#ALLREDUCE_ALGORITHM}: auto, ring, halving-doubling, pipelined-ring or
 *        rank-order
 * @param allReduceSmallBytes {@link ConfigKey#ALLREDUCE_SMALL_SIZE}
 * @param allReduceLargeBytes {@link ConfigKey#ALLREDUCE_LARGE_SIZE}
 * @param pipelineSegmentBytes {@link ConfigKey#PIPELINE_SEGMENT_SIZE}
 * @param broadcastAlgorithm {@link ConfigKey#BROADCAST_ALGORITHM}: auto, binomial or scatter-allgather
 * @param broadcastLargeBytes {@link ConfigKey#BROADCAST_LARGE_SIZE}
 * @param allGatherAlgorithm {@link ConfigKey#ALLGATHER_ALGORITHM}: auto, ring or recursive-doubling
 * @param allGatherSmallBytes {@link ConfigKey#ALLGATHER_SMALL_SIZE}
 * @param bulk {@link ConfigKey#BULK}: tls, tcp-plain or quic
 * @param bulkThresholdBytes {@link ConfigKey#BULK_THRESHOLD}
 * @param pollWindow {@link ConfigKey#POLL_WINDOW}
 * @param tlsEngine {@link ConfigKey#TLS_ENGINE}: auto, boringssl or jdk
 * @param heartbeatInterval {@link ConfigKey#HEARTBEAT_INTERVAL}
 * @param heartbeatTimeout {@link ConfigKey#HEARTBEAT_TIMEOUT}; greater than {@code heartbeatInterval}
 * @param recoveryPolicy {@link ConfigKey#RECOVERY_POLICY}: abort, manual or automatic
 * @param worldMinSize {@link ConfigKey#WORLD_MIN_SIZE}
 * @param recoveryTimeout {@link ConfigKey#RECOVERY_TIMEOUT}
 * @param worldMaxSize {@link ConfigKey#WORLD_MAX_SIZE}; at least {@code worldMinSize}
 * @param joinElastic {@link ConfigKey#JOIN_ELASTIC}
 * @param rpcTimeout {@link ConfigKey#RPC_TIMEOUT}
 * @param rpcMaxInFlight {@link ConfigKey#RPC_MAX_IN_FLIGHT}
 * @param sources where each value came from; keys missing from the map are reported as {@link ConfigSource#BUILDER}
 *        (the values were given in code). The component holds an unmodifiable copy ordered by key.
 */
public record NexarConfig(Duration p2pTimeout, Duration closeTimeout, long maxFrameBytes, long chunkBytes,
                          long unexpectedMaxBytes, Duration collectiveTimeout, boolean collectiveDeterministic,
                          boolean collectiveVerify, Duration hangReportAfter, String allReduceAlgorithm,
                          long allReduceSmallBytes, long allReduceLargeBytes,
                          long pipelineSegmentBytes, String broadcastAlgorithm, long broadcastLargeBytes,
                          String allGatherAlgorithm, long allGatherSmallBytes, String bulk, long bulkThresholdBytes,
                          Duration pollWindow, String tlsEngine, Duration heartbeatInterval,
                          Duration heartbeatTimeout, String recoveryPolicy,
                          int worldMinSize, Duration recoveryTimeout, int worldMaxSize, boolean joinElastic,
                          Duration rpcTimeout, int rpcMaxInFlight, Map<ConfigKey, ConfigSource> sources) {

    /**
     * Bytes of a frame kept for the headers of a data chunk: {@code chunkBytes} must be at most
     * {@code maxFrameBytes - FRAME_HEADROOM_BYTES}, so a full chunk always fits in one frame.
     */
    public static final long FRAME_HEADROOM_BYTES = 64;

    /**
     * Validates every value and the invariants between them.
     *
     * @throws InvalidConfigurationException if a value is out of its key's range, or {@code chunkBytes} exceeds
     *         {@code maxFrameBytes - FRAME_HEADROOM_BYTES}; the message names the settings as their sources name
     *         them, and their values
     * @throws NullPointerException if a duration or {@code sources} is null
     */
    public NexarConfig {
        Objects.requireNonNull(p2pTimeout, "p2pTimeout");
        Objects.requireNonNull(closeTimeout, "closeTimeout");
        sources = copyOf(sources);
        check(ConfigKey.P2P_TIMEOUT, p2pTimeout, sources);
        check(ConfigKey.CLOSE_TIMEOUT, closeTimeout, sources);
        check(ConfigKey.MAX_FRAME_SIZE, maxFrameBytes, sources);
        check(ConfigKey.CHUNK_SIZE, chunkBytes, sources);
        check(ConfigKey.UNEXPECTED_MAX_BYTES, unexpectedMaxBytes, sources);
        Objects.requireNonNull(collectiveTimeout, "collectiveTimeout");
        check(ConfigKey.COLLECTIVE_TIMEOUT, collectiveTimeout, sources);
        check(ConfigKey.ALLREDUCE_ALGORITHM, Objects.requireNonNull(allReduceAlgorithm, "allReduceAlgorithm"), sources);
        check(ConfigKey.ALLREDUCE_SMALL_SIZE, allReduceSmallBytes, sources);
        check(ConfigKey.ALLREDUCE_LARGE_SIZE, allReduceLargeBytes, sources);
        check(ConfigKey.PIPELINE_SEGMENT_SIZE, pipelineSegmentBytes, sources);
        check(ConfigKey.BROADCAST_ALGORITHM, Objects.requireNonNull(broadcastAlgorithm, "broadcastAlgorithm"), sources);
        check(ConfigKey.BROADCAST_LARGE_SIZE, broadcastLargeBytes, sources);
        check(ConfigKey.ALLGATHER_ALGORITHM, Objects.requireNonNull(allGatherAlgorithm, "allGatherAlgorithm"), sources);
        check(ConfigKey.ALLGATHER_SMALL_SIZE, allGatherSmallBytes, sources);
        check(ConfigKey.BULK, Objects.requireNonNull(bulk, "bulk"), sources);
        check(ConfigKey.BULK_THRESHOLD, bulkThresholdBytes, sources);
        check(ConfigKey.POLL_WINDOW, Objects.requireNonNull(pollWindow, "pollWindow"), sources);
        check(ConfigKey.HANG_REPORT_AFTER, Objects.requireNonNull(hangReportAfter, "hangReportAfter"), sources);
        check(ConfigKey.TLS_ENGINE, Objects.requireNonNull(tlsEngine, "tlsEngine"), sources);
        check(ConfigKey.HEARTBEAT_INTERVAL, Objects.requireNonNull(heartbeatInterval, "heartbeatInterval"), sources);
        check(ConfigKey.HEARTBEAT_TIMEOUT, Objects.requireNonNull(heartbeatTimeout, "heartbeatTimeout"), sources);
        check(ConfigKey.RECOVERY_POLICY, Objects.requireNonNull(recoveryPolicy, "recoveryPolicy"), sources);
        check(ConfigKey.WORLD_MIN_SIZE, worldMinSize, sources);
        check(ConfigKey.RECOVERY_TIMEOUT, Objects.requireNonNull(recoveryTimeout, "recoveryTimeout"), sources);
        check(ConfigKey.WORLD_MAX_SIZE, worldMaxSize, sources);
        check(ConfigKey.RPC_TIMEOUT, Objects.requireNonNull(rpcTimeout, "rpcTimeout"), sources);
        check(ConfigKey.RPC_MAX_IN_FLIGHT, rpcMaxInFlight, sources);
        if (worldMaxSize < worldMinSize) {
            throw new InvalidConfigurationException(setting(ConfigKey.WORLD_MAX_SIZE, sources),
                    String.valueOf(worldMaxSize), "a number of ranks of at least "
                            + setting(ConfigKey.WORLD_MIN_SIZE, sources) + " " + worldMinSize);
        }
        if (heartbeatTimeout.compareTo(heartbeatInterval) <= 0) {
            throw new InvalidConfigurationException(setting(ConfigKey.HEARTBEAT_TIMEOUT, sources),
                    Units.formatDuration(heartbeatTimeout), "a duration greater than "
                            + setting(ConfigKey.HEARTBEAT_INTERVAL, sources) + " "
                            + Units.formatDuration(heartbeatInterval));
        }
        if (chunkBytes > maxFrameBytes - FRAME_HEADROOM_BYTES) {
            throw new InvalidConfigurationException(setting(ConfigKey.CHUNK_SIZE, sources),
                    Units.formatSize(chunkBytes),
                    "a size of at most " + Units.formatSize(maxFrameBytes - FRAME_HEADROOM_BYTES) + " ("
                            + setting(ConfigKey.MAX_FRAME_SIZE, sources) + " " + Units.formatSize(maxFrameBytes)
                            + " minus " + Units.formatSize(FRAME_HEADROOM_BYTES) + " of frame headers)");
        }
    }

    /**
     * A configuration with these transport values and the defaults of every collective key.
     *
     * @param p2pTimeout setting {@code p2p.timeout}
     * @param closeTimeout setting {@code close.timeout}
     * @param maxFrameBytes setting {@code max.frame.size}, in bytes
     * @param chunkBytes setting {@code chunk.size}, in bytes
     * @param unexpectedMaxBytes setting {@code unexpected.max.bytes}, in bytes
     * @param sources where each key's value came from
     * @throws InvalidConfigurationException as the canonical constructor
     */
    public NexarConfig(Duration p2pTimeout, Duration closeTimeout, long maxFrameBytes, long chunkBytes,
                       long unexpectedMaxBytes, Map<ConfigKey, ConfigSource> sources) {
        this(p2pTimeout, closeTimeout, maxFrameBytes, chunkBytes, unexpectedMaxBytes,
                (Duration) ConfigKey.COLLECTIVE_TIMEOUT.parsedDefault(),
                (Boolean) ConfigKey.COLLECTIVE_DETERMINISTIC.parsedDefault(),
                (Boolean) ConfigKey.COLLECTIVE_VERIFY.parsedDefault(),
                (Duration) ConfigKey.HANG_REPORT_AFTER.parsedDefault(),
                (String) ConfigKey.ALLREDUCE_ALGORITHM.parsedDefault(),
                (Long) ConfigKey.ALLREDUCE_SMALL_SIZE.parsedDefault(),
                (Long) ConfigKey.ALLREDUCE_LARGE_SIZE.parsedDefault(),
                (Long) ConfigKey.PIPELINE_SEGMENT_SIZE.parsedDefault(),
                (String) ConfigKey.BROADCAST_ALGORITHM.parsedDefault(),
                (Long) ConfigKey.BROADCAST_LARGE_SIZE.parsedDefault(),
                (String) ConfigKey.ALLGATHER_ALGORITHM.parsedDefault(),
                (Long) ConfigKey.ALLGATHER_SMALL_SIZE.parsedDefault(),
                (String) ConfigKey.BULK.parsedDefault(),
                (Long) ConfigKey.BULK_THRESHOLD.parsedDefault(),
                (Duration) ConfigKey.POLL_WINDOW.parsedDefault(),
                (String) ConfigKey.TLS_ENGINE.parsedDefault(),
                (Duration) ConfigKey.HEARTBEAT_INTERVAL.parsedDefault(),
                (Duration) ConfigKey.HEARTBEAT_TIMEOUT.parsedDefault(),
                (String) ConfigKey.RECOVERY_POLICY.parsedDefault(),
                (Integer) ConfigKey.WORLD_MIN_SIZE.parsedDefault(),
                (Duration) ConfigKey.RECOVERY_TIMEOUT.parsedDefault(),
                (Integer) ConfigKey.WORLD_MAX_SIZE.parsedDefault(),
                (Boolean) ConfigKey.JOIN_ELASTIC.parsedDefault(),
                (Duration) ConfigKey.RPC_TIMEOUT.parsedDefault(),
                (Integer) ConfigKey.RPC_MAX_IN_FLIGHT.parsedDefault(), sources);
    }

    /**
     * {@link #recoveryPolicy()} as the enum.
     *
     * @return setting {@code recovery.policy} as the enum
     */
    public RecoveryPolicy policy() {
        return RecoveryPolicy.fromKey(recoveryPolicy);
    }

    /**
     * The built-in defaults only; the environment and system properties are not read.
     *
     * @return the configuration of built-in defaults
     */
    public static NexarConfig defaults() {
        return builder().ignoreEnvironment().build();
    }

    /**
     * The defaults, overridden by {@code NEXAR_*} environment variables ({@link System#getenv()}), overridden by
     * {@code nexar.*} system properties ({@link System#getProperties()}).
     *
     * @return the configuration of this process
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
     * @return a builder holding this configuration
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
     * @return the table, one line per key
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

    /** The value of a key, boxed: {@link Duration}, {@link Long} bytes, {@link Integer}, {@link Boolean}, or text. */
    Object value(ConfigKey key) {
        return switch (key) {
            case P2P_TIMEOUT -> p2pTimeout;
            case CLOSE_TIMEOUT -> closeTimeout;
            case MAX_FRAME_SIZE -> maxFrameBytes;
            case CHUNK_SIZE -> chunkBytes;
            case UNEXPECTED_MAX_BYTES -> unexpectedMaxBytes;
            case COLLECTIVE_TIMEOUT -> collectiveTimeout;
            case COLLECTIVE_DETERMINISTIC -> collectiveDeterministic;
            case COLLECTIVE_VERIFY -> collectiveVerify;
            case HANG_REPORT_AFTER -> hangReportAfter;
            case ALLREDUCE_ALGORITHM -> allReduceAlgorithm;
            case ALLREDUCE_SMALL_SIZE -> allReduceSmallBytes;
            case ALLREDUCE_LARGE_SIZE -> allReduceLargeBytes;
            case PIPELINE_SEGMENT_SIZE -> pipelineSegmentBytes;
            case BROADCAST_ALGORITHM -> broadcastAlgorithm;
            case BROADCAST_LARGE_SIZE -> broadcastLargeBytes;
            case ALLGATHER_ALGORITHM -> allGatherAlgorithm;
            case ALLGATHER_SMALL_SIZE -> allGatherSmallBytes;
            case BULK -> bulk;
            case BULK_THRESHOLD -> bulkThresholdBytes;
            case POLL_WINDOW -> pollWindow;
            case TLS_ENGINE -> tlsEngine;
            case HEARTBEAT_INTERVAL -> heartbeatInterval;
            case HEARTBEAT_TIMEOUT -> heartbeatTimeout;
            case RECOVERY_POLICY -> recoveryPolicy;
            case WORLD_MIN_SIZE -> worldMinSize;
            case RECOVERY_TIMEOUT -> recoveryTimeout;
            case WORLD_MAX_SIZE -> worldMaxSize;
            case JOIN_ELASTIC -> joinElastic;
            case RPC_TIMEOUT -> rpcTimeout;
            case RPC_MAX_IN_FLIGHT -> rpcMaxInFlight;
        };
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
            return typed(ConfigKey.RECOVERY_POLICY, Objects.requireNonNull(policy, "policy").key());
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
         * @param after the time without progress before a hang report, or {@link Duration#ZERO} for never
         * @return this builder
         * @throws InvalidConfigurationException if negative or longer than 24 hours
         */
        public Builder hangReportAfter(Duration after) {
            return typed(ConfigKey.HANG_REPORT_AFTER, after);
        }

        /**
         * Sets {@link ConfigKey#RPC_TIMEOUT}: the deadline of one remote call.
         *
         * @param timeout the deadline of one remote call, positive
         * @return this builder
         * @throws InvalidConfigurationException if not positive
         */
        public Builder rpcTimeout(Duration timeout) {
            return typed(ConfigKey.RPC_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
        }

        /**
         * Sets {@link ConfigKey#RPC_MAX_IN_FLIGHT}: the most remote calls to one rank in flight at once.
         *
         * @param calls the most calls to one rank in flight at once, in [1, 65536]
         * @return this builder
         * @throws InvalidConfigurationException if not in [1, 65536]
         */
        public Builder rpcMaxInFlight(int calls) {
            return typed(ConfigKey.RPC_MAX_IN_FLIGHT, calls);
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
            return new NexarConfig(
                    (Duration) resolved.get(ConfigKey.P2P_TIMEOUT),
                    (Duration) resolved.get(ConfigKey.CLOSE_TIMEOUT),
                    (Long) resolved.get(ConfigKey.MAX_FRAME_SIZE),
                    (Long) resolved.get(ConfigKey.CHUNK_SIZE),
                    (Long) resolved.get(ConfigKey.UNEXPECTED_MAX_BYTES),
                    (Duration) resolved.get(ConfigKey.COLLECTIVE_TIMEOUT),
                    (Boolean) resolved.get(ConfigKey.COLLECTIVE_DETERMINISTIC),
                    (Boolean) resolved.get(ConfigKey.COLLECTIVE_VERIFY),
                    (Duration) resolved.get(ConfigKey.HANG_REPORT_AFTER),
                    (String) resolved.get(ConfigKey.ALLREDUCE_ALGORITHM),
                    (Long) resolved.get(ConfigKey.ALLREDUCE_SMALL_SIZE),
                    (Long) resolved.get(ConfigKey.ALLREDUCE_LARGE_SIZE),
                    (Long) resolved.get(ConfigKey.PIPELINE_SEGMENT_SIZE),
                    (String) resolved.get(ConfigKey.BROADCAST_ALGORITHM),
                    (Long) resolved.get(ConfigKey.BROADCAST_LARGE_SIZE),
                    (String) resolved.get(ConfigKey.ALLGATHER_ALGORITHM),
                    (Long) resolved.get(ConfigKey.ALLGATHER_SMALL_SIZE),
                    (String) resolved.get(ConfigKey.BULK),
                    (Long) resolved.get(ConfigKey.BULK_THRESHOLD),
                    (Duration) resolved.get(ConfigKey.POLL_WINDOW),
                    (String) resolved.get(ConfigKey.TLS_ENGINE),
                    (Duration) resolved.get(ConfigKey.HEARTBEAT_INTERVAL),
                    (Duration) resolved.get(ConfigKey.HEARTBEAT_TIMEOUT),
                    (String) resolved.get(ConfigKey.RECOVERY_POLICY),
                    (Integer) resolved.get(ConfigKey.WORLD_MIN_SIZE),
                    (Duration) resolved.get(ConfigKey.RECOVERY_TIMEOUT),
                    (Integer) resolved.get(ConfigKey.WORLD_MAX_SIZE),
                    (Boolean) resolved.get(ConfigKey.JOIN_ELASTIC),
                    (Duration) resolved.get(ConfigKey.RPC_TIMEOUT),
                    (Integer) resolved.get(ConfigKey.RPC_MAX_IN_FLIGHT),
                    sources);
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
