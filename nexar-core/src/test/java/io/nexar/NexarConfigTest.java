package io.nexar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.internal.config.ValueFormatException;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Resolution, precedence, validation and reporting of {@link NexarConfig}. The real environment is never read. */
@Timeout(10)
class NexarConfigTest {

    private static final long KIB = 1024;
    private static final long MIB = 1024 * KIB;
    private static final long GIB = 1024 * MIB;

    /** Three distinct valid values per key: for the environment, the system properties and the builder. */
    private static final Map<ConfigKey, List<String>> LAYERS = layers();

    private static Map<ConfigKey, List<String>> layers() {
        var m = new EnumMap<ConfigKey, List<String>>(ConfigKey.class);
        m.put(ConfigKey.P2P_TIMEOUT, List.of("10s", "20s", "40s"));
        m.put(ConfigKey.CLOSE_TIMEOUT, List.of("1s", "2s", "3s"));
        m.put(ConfigKey.MAX_FRAME_SIZE, List.of("32MiB", "64MiB", "128MiB"));
        m.put(ConfigKey.CHUNK_SIZE, List.of("1MiB", "2MiB", "3MiB"));
        m.put(ConfigKey.UNEXPECTED_MAX_BYTES, List.of("1GiB", "2GiB", "3GiB"));
        m.put(ConfigKey.COLLECTIVE_TIMEOUT, List.of("10s", "20s", "40s"));
        m.put(ConfigKey.COLLECTIVE_DETERMINISTIC, List.of("true", "false", "true"));
        m.put(ConfigKey.COLLECTIVE_VERIFY, List.of("false", "true", "false"));
        m.put(ConfigKey.HANG_REPORT_AFTER, List.of("0s", "5s", "20s"));
        m.put(ConfigKey.COLLECTIVE_PROBE_AFTER, List.of("0s", "250ms", "2s"));
        m.put(ConfigKey.ALLREDUCE_ALGORITHM, List.of("ring", "halving-doubling", "rank-order"));
        m.put(ConfigKey.ALLREDUCE_SMALL_SIZE, List.of("1KiB", "2KiB", "3KiB"));
        m.put(ConfigKey.ALLREDUCE_LARGE_SIZE, List.of("1MiB", "2MiB", "3MiB"));
        m.put(ConfigKey.PIPELINE_SEGMENT_SIZE, List.of("2KiB", "4KiB", "8KiB"));
        m.put(ConfigKey.BROADCAST_ALGORITHM, List.of("binomial", "scatter-allgather", "binomial"));
        m.put(ConfigKey.BROADCAST_LARGE_SIZE, List.of("1MiB", "2MiB", "3MiB"));
        m.put(ConfigKey.ALLGATHER_ALGORITHM, List.of("ring", "recursive-doubling", "ring"));
        m.put(ConfigKey.ALLGATHER_SMALL_SIZE, List.of("1KiB", "2KiB", "3KiB"));
        m.put(ConfigKey.BULK, List.of("quic", "tcp-plain", "tls"));
        m.put(ConfigKey.BULK_THRESHOLD, List.of("1KiB", "2KiB", "3KiB"));
        m.put(ConfigKey.POLL_WINDOW, List.of("0s", "50us", "1ms"));
        m.put(ConfigKey.TLS_ENGINE, List.of("jdk", "boringssl", "auto"));
        m.put(ConfigKey.BIND_ADDRESS, List.of("10.0.0.5", "fd00::5", "node-1.example"));
        m.put(ConfigKey.ADVERTISE_ADDRESS, List.of("203.0.113.7", "auto", "pod-1.jobs.svc"));
        m.put(ConfigKey.PORT_RANGE, List.of("40000-40100", "7000", "0"));
        m.put(ConfigKey.HEARTBEAT_INTERVAL, List.of("100ms", "200ms", "300ms"));
        m.put(ConfigKey.HEARTBEAT_TIMEOUT, List.of("2s", "3s", "4s"));
        m.put(ConfigKey.RECOVERY_POLICY, List.of("manual", "automatic", "abort"));
        m.put(ConfigKey.WORLD_MIN_SIZE, List.of("2", "3", "4"));
        m.put(ConfigKey.RECOVERY_TIMEOUT, List.of("10s", "20s", "40s"));
        m.put(ConfigKey.WORLD_MAX_SIZE, List.of("8", "16", "32"));
        m.put(ConfigKey.JOIN_ELASTIC, List.of("true", "false", "true"));
        m.put(ConfigKey.TOPOLOGY, List.of("k-regular:2", "hypercube", "k-regular:4"));
        m.put(ConfigKey.FORMATION_TIMEOUT, List.of("5s", "2m", "90s"));
        m.put(ConfigKey.CERT_VALIDITY, List.of("1h", "2h", "7h"));
        m.put(ConfigKey.RPC_TIMEOUT, List.of("5s", "10s", "1m"));
        m.put(ConfigKey.RPC_MAX_IN_FLIGHT, List.of("2", "8", "128"));
        return m;
    }

    private static NexarConfig.Builder isolated() {
        return NexarConfig.builder().ignoreEnvironment();
    }

    private static Map<String, String> env(String name, String value) {
        return Map.of(name, value);
    }

    @Test
    void shouldUseBuiltInDefaults() {
        var config = NexarConfig.defaults();

        assertThat(config.p2pTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(config.closeTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.maxFrameBytes()).isEqualTo(16 * MIB);
        assertThat(config.chunkBytes()).isEqualTo(4 * MIB);
        assertThat(config.unexpectedMaxBytes()).isEqualTo(256 * MIB);
        for (var key : ConfigKey.values()) {
            assertThat(config.source(key)).as(key.key()).isEqualTo(ConfigSource.DEFAULT);
        }
        assertThat(config).isEqualTo(isolated().build());
    }

    @Test
    void shouldCoverEveryKeyInThePrecedenceTable() {
        assertThat(LAYERS.keySet()).containsExactly(ConfigKey.values());
    }

    @ParameterizedTest
    @EnumSource(ConfigKey.class)
    void shouldApplyDefaultThenEnvironmentThenSystemPropertyThenBuilder(ConfigKey key) {
        var texts = LAYERS.get(key);
        Function<NexarConfig, String> value = c -> key.type().format(c.value(key));
        var environment = env(key.envVar(), texts.get(0));
        var properties = Map.of(key.systemProperty(), texts.get(1));

        var defaults = isolated().build();
        var fromEnv = isolated().environment(environment).build();
        var fromProperty = isolated().environment(environment).systemProperties(properties).build();
        var fromBuilder = isolated().environment(environment).systemProperties(properties).set(key, texts.get(2))
                .build();

        assertThat(value.apply(defaults)).isEqualTo(key.defaultValue());
        assertThat(defaults.source(key)).isEqualTo(ConfigSource.DEFAULT);
        assertThat(value.apply(fromEnv)).isEqualTo(texts.get(0));
        assertThat(fromEnv.source(key)).isEqualTo(ConfigSource.ENVIRONMENT);
        assertThat(value.apply(fromProperty)).isEqualTo(texts.get(1));
        assertThat(fromProperty.source(key)).isEqualTo(ConfigSource.SYSTEM_PROPERTY);
        assertThat(value.apply(fromBuilder)).isEqualTo(texts.get(2));
        assertThat(fromBuilder.source(key)).isEqualTo(ConfigSource.BUILDER);
        // the other keys are untouched
        for (var other : ConfigKey.values()) {
            if (other != key) {
                assertThat(fromBuilder.source(other)).isEqualTo(ConfigSource.DEFAULT);
            }
        }
    }

    @Test
    void shouldLetTypedSettersBeatSystemProperties() {
        var config = isolated().systemProperties(Map.of("nexar.p2p.timeout", "20s", "nexar.chunk.size", "1MiB"))
                .p2pTimeout(Duration.ofMillis(250)).chunkBytes(64 * KIB).build();

        assertThat(config.p2pTimeout()).isEqualTo(Duration.ofMillis(250));
        assertThat(config.chunkBytes()).isEqualTo(64 * KIB);
        assertThat(config.source(ConfigKey.P2P_TIMEOUT)).isEqualTo(ConfigSource.BUILDER);
        assertThat(config.source(ConfigKey.CHUNK_SIZE)).isEqualTo(ConfigSource.BUILDER);
    }

    @Test
    void shouldNotReadAValueThatIsOverridden() {
        var config = isolated().environment(env("NEXAR_P2P_TIMEOUT", "30x"))
                .systemProperties(Map.of("nexar.p2p.timeout", "10s")).build();

        assertThat(config.p2pTimeout()).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void shouldReadSystemPropertiesFromProperties() {
        var properties = new Properties();
        properties.setProperty("nexar.close.timeout", "750ms");
        properties.put("nexar.chunk.size", 12); // not a string: ignored, like System.getProperty would

        var config = isolated().systemProperties(properties).build();

        assertThat(config.closeTimeout()).isEqualTo(Duration.ofMillis(750));
        assertThat(config.source(ConfigKey.CLOSE_TIMEOUT)).isEqualTo(ConfigSource.SYSTEM_PROPERTY);
        assertThat(config.source(ConfigKey.CHUNK_SIZE)).isEqualTo(ConfigSource.DEFAULT);
    }

    @Test
    void shouldReadTheProcessEnvironmentOnlyWhenAskedTo() {
        assertThat(NexarConfig.fromEnvironment()).isEqualTo(NexarConfig.builder().build());
        assertThat(NexarConfig.builder().ignoreEnvironment().build()).isEqualTo(NexarConfig.defaults());
    }

    @Test
    void shouldDescribeValuesWithUnitsAndSources() {
        var config = isolated()
                .environment(Map.of("NEXAR_P2P_TIMEOUT", "90s", "NEXAR_CHUNK_SIZE", "1048576"))
                .systemProperties(Map.of("nexar.max.frame.size", "65536KiB"))
                .closeTimeout(Duration.ofMillis(1500))
                .build();

        assertThat(config.describe()).isEqualTo("""
                p2p.timeout               90s        env NEXAR_P2P_TIMEOUT
                close.timeout             1500ms     builder
                max.frame.size            64MiB      system property nexar.max.frame.size
                chunk.size                1MiB       env NEXAR_CHUNK_SIZE
                unexpected.max.bytes      256MiB     default
                collective.timeout        30s        default
                collective.deterministic  false      default
                collective.verify         false      default
                hang.report.after         10s        default
                collective.probe.after    1s         default
                allreduce.algorithm       auto       default
                allreduce.small.size      64KiB      default
                allreduce.large.size      1TiB       default
                pipeline.segment.size     1MiB       default
                broadcast.algorithm       auto       default
                broadcast.large.size      512KiB     default
                allgather.algorithm       auto       default
                allgather.small.size      64KiB      default
                bulk                      tls        default
                bulk.threshold            0B         default
                poll.window               2ms        default
                tls.engine                auto       default
                bind.address              auto       default
                advertise.address         auto       default
                port.range                0          default
                heartbeat.interval        1s         default
                heartbeat.timeout         5s         default
                recovery.policy           abort      default
                world.min.size            1          default
                recovery.timeout          30s        default
                world.max.size            65535      default
                join.elastic              false      default
                topology                  full-mesh  default
                formation.timeout         1m         default
                cert.validity             24h        default
                rpc.timeout               30s        default
                rpc.max.in.flight         64         default""");
        assertThat(config.sources()).containsAllEntriesOf(Map.of(
                ConfigKey.P2P_TIMEOUT, ConfigSource.ENVIRONMENT,
                ConfigKey.CLOSE_TIMEOUT, ConfigSource.BUILDER,
                ConfigKey.MAX_FRAME_SIZE, ConfigSource.SYSTEM_PROPERTY,
                ConfigKey.CHUNK_SIZE, ConfigSource.ENVIRONMENT,
                ConfigKey.UNEXPECTED_MAX_BYTES, ConfigSource.DEFAULT)).containsEntry(ConfigKey.COLLECTIVE_TIMEOUT,
                ConfigSource.DEFAULT);
    }

    @Test
    void shouldKeepValuesAndSourcesThroughToBuilder() {
        var config = isolated().environment(env("NEXAR_P2P_TIMEOUT", "90s"))
                .systemProperties(Map.of("nexar.chunk.size", "1MiB")).maxFrameBytes(8 * MIB).build();

        assertThat(config.toBuilder().build()).isEqualTo(config);

        var changed = config.toBuilder().unexpectedMaxBytes(0).build();
        assertThat(changed.unexpectedMaxBytes()).isZero();
        assertThat(changed.source(ConfigKey.UNEXPECTED_MAX_BYTES)).isEqualTo(ConfigSource.BUILDER);
        assertThat(changed.p2pTimeout()).isEqualTo(Duration.ofSeconds(90));
        assertThat(changed.source(ConfigKey.P2P_TIMEOUT)).isEqualTo(ConfigSource.ENVIRONMENT);
        assertThat(changed.source(ConfigKey.CHUNK_SIZE)).isEqualTo(ConfigSource.SYSTEM_PROPERTY);
    }

    @Test
    void shouldCompareValuesAndSourcesAndKeepTheSourcesUnmodifiable() {
        var fromEnv = isolated().environment(env("NEXAR_P2P_TIMEOUT", "1s")).build();
        var fromBuilder = isolated().p2pTimeout(Duration.ofSeconds(1)).build();

        assertThat(fromEnv.p2pTimeout()).isEqualTo(fromBuilder.p2pTimeout());
        assertThat(fromEnv).isNotEqualTo(fromBuilder).isEqualTo(isolated().environment(env("NEXAR_P2P_TIMEOUT", "1s"))
                .build()).hasSameHashCodeAs(isolated().environment(env("NEXAR_P2P_TIMEOUT", "1s")).build());
        assertThat(fromEnv.toString()).startsWith("NexarConfig[p2p.timeout=1s (env NEXAR_P2P_TIMEOUT), "
                + "close.timeout=5s (default), ").endsWith("]");
        assertThatThrownBy(() -> fromEnv.sources().put(ConfigKey.CHUNK_SIZE, ConfigSource.DEFAULT))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void shouldHaveATypedSetterForEveryAccessorAndAnAccessorForEveryKey() throws ReflectiveOperationException {
        var skipped = java.util.Set.of("policy", "sources", "describe", "toBuilder", "toString", "hashCode");
        int accessors = 0;
        for (var m : NexarConfig.class.getMethods()) {
            if (m.getDeclaringClass() == Object.class || !java.lang.reflect.Modifier.isPublic(m.getModifiers())
                    || java.lang.reflect.Modifier.isStatic(m.getModifiers()) || m.getParameterCount() != 0
                    || skipped.contains(m.getName())) {
                continue;
            }
            accessors++;
            var setter = NexarConfig.Builder.class.getMethod(m.getName(), m.getReturnType());
            assertThat(setter.getReturnType()).as(m.getName()).isEqualTo(NexarConfig.Builder.class);
        }
        assertThat(accessors).isEqualTo(ConfigKey.values().length);
    }

    @Test
    void shouldTakeEnumeratedValuesAsEnumsAndAsText() {
        var typed = isolated().allReduceAlgorithm(AllReduceAlgorithm.HALVING_DOUBLING)
                .broadcastAlgorithm(BroadcastAlgorithm.SCATTER_ALLGATHER)
                .allGatherAlgorithm(AllGatherAlgorithm.RECURSIVE_DOUBLING).bulk(BulkMode.TCP_PLAIN)
                .tlsEngine(TlsEngine.JDK).recoveryPolicy(RecoveryPolicy.MANUAL).build();
        var text = isolated().environment(Map.of("NEXAR_ALLREDUCE_ALGORITHM", "Halving-Doubling",
                "NEXAR_BROADCAST_ALGORITHM", "scatter-allgather", "NEXAR_ALLGATHER_ALGORITHM", "recursive-doubling",
                "NEXAR_BULK", "tcp-plain", "NEXAR_TLS_ENGINE", "jdk", "NEXAR_RECOVERY_POLICY", "manual")).build();

        assertThat(text.allReduceAlgorithm()).isEqualTo(AllReduceAlgorithm.HALVING_DOUBLING);
        assertThat(text.bulk()).isEqualTo(BulkMode.TCP_PLAIN);
        for (var key : ConfigKey.values()) {
            assertThat(text.value(key)).as(key.key()).isEqualTo(typed.value(key));
        }
        assertThat(typed.describe()).contains("allreduce.algorithm       halving-doubling")
                .contains("bulk                      tcp-plain");
        assertThat(ConfigKey.BULK.choices()).containsExactly("tls", "tcp-plain", "quic");
        assertThat(BulkMode.TCP_PLAIN.key()).isEqualTo("tcp-plain");
        assertFails(isolated().environment(Map.of("NEXAR_BULK", "udp")),
                "configure failed: NEXAR_BULK=\"udp\": expected one of tls, tcp-plain, quic");
    }

    // ---- error messages, asserted whole --------------------------------------------------------------------------

    private static void assertFails(NexarConfig.Builder builder, String message) {
        assertThatThrownBy(builder::build).isInstanceOf(InvalidConfigurationException.class).hasMessage(message);
    }

    @Test
    void shouldNameTheEnvironmentVariableOfAMalformedDuration() {
        assertThatThrownBy(() -> isolated().environment(env("NEXAR_P2P_TIMEOUT", "30x")).build())
                .isInstanceOfSatisfying(InvalidConfigurationException.class, e -> {
                    assertThat(e.setting()).isEqualTo("NEXAR_P2P_TIMEOUT");
                    assertThat(e.value()).isEqualTo("30x");
                    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
                    assertThat(e.operation()).isEqualTo(Operation.CONFIGURE);
                })
                .hasMessage("configure failed: NEXAR_P2P_TIMEOUT=\"30x\": expected a duration such as 500ms or 30s");
    }

    @Test
    void shouldRejectADurationWithoutUnitSayingTheUnitIsRequired() {
        assertFails(isolated().systemProperties(Map.of("nexar.p2p.timeout", "30")),
                "configure failed: nexar.p2p.timeout=\"30\": expected a duration such as 500ms or 30s; "
                        + "a unit is required (ns, us, ms, s, m, h)");
    }

    @Test
    void shouldRejectAZeroTimeout() {
        assertFails(isolated().environment(env("NEXAR_CLOSE_TIMEOUT", "0ms")),
                "configure failed: NEXAR_CLOSE_TIMEOUT=\"0ms\": expected a duration greater than 0s");
    }

    @Test
    void shouldRejectADurationTooLongForNanoseconds() {
        assertFails(isolated().environment(env("NEXAR_P2P_TIMEOUT", "2562048h")),
                "configure failed: NEXAR_P2P_TIMEOUT=\"2562048h\": expected a duration of at most 2562047h");
    }

    @Test
    void shouldNameTheEnvironmentVariableOfAMalformedSize() {
        assertFails(isolated().environment(env("NEXAR_MAX_FRAME_SIZE", "16XB")),
                "configure failed: NEXAR_MAX_FRAME_SIZE=\"16XB\": expected a size such as 64KiB or 16MiB");
    }

    @Test
    void shouldRejectASizeOutOfRangeNamingTheRange() {
        assertFails(isolated().systemProperties(Map.of("nexar.max.frame.size", "2GiB")),
                "configure failed: nexar.max.frame.size=\"2GiB\": expected a size between 4KiB and 1GiB");
        assertFails(isolated().environment(env("NEXAR_CHUNK_SIZE", "1000")),
                "configure failed: NEXAR_CHUNK_SIZE=\"1000\": expected a size between 1KiB and 1GiB");
    }

    @Test
    void shouldReportTheRangeWhenASizeOverflows() {
        assertFails(isolated().environment(env("NEXAR_UNEXPECTED_MAX_BYTES", "99999999999999TiB")),
                "configure failed: NEXAR_UNEXPECTED_MAX_BYTES=\"99999999999999TiB\": "
                        + "expected a size between 0B and 4194304TiB");
        assertFails(isolated().environment(env("NEXAR_UNEXPECTED_MAX_BYTES", "4194305TiB")),
                "configure failed: NEXAR_UNEXPECTED_MAX_BYTES=\"4194305TiB\": "
                        + "expected a size between 0B and 4194304TiB");
    }

    @Test
    void shouldRejectAnEmptyValueRatherThanIgnoreIt() {
        assertFails(isolated().environment(env("NEXAR_CHUNK_SIZE", "")),
                "configure failed: NEXAR_CHUNK_SIZE=\"\": expected a size such as 64KiB or 16MiB");
    }

    @Test
    void shouldReadTheProbeDelayAndRefuseOneOutOfRangeNamingTheKey() {
        assertThat(NexarConfig.defaults().collectiveProbeAfter()).isEqualTo(Duration.ofSeconds(1));
        assertThat(isolated().environment(env("NEXAR_COLLECTIVE_PROBE_AFTER", "250ms")).build()
                .collectiveProbeAfter()).isEqualTo(Duration.ofMillis(250));
        assertThat(isolated().collectiveProbeAfter(Duration.ZERO).build().collectiveProbeAfter()).isZero();
        assertFails(isolated().environment(env("NEXAR_COLLECTIVE_PROBE_AFTER", "25h")),
                "configure failed: NEXAR_COLLECTIVE_PROBE_AFTER=\"25h\": expected a duration between 0s and 24h");
        assertThatThrownBy(() -> isolated().collectiveProbeAfter(Duration.ofMillis(-1)))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageStartingWith("configure failed: collective.probe.after=\"-1ms\": expected a duration");
        assertThatThrownBy(() -> isolated().set(ConfigKey.COLLECTIVE_PROBE_AFTER, "1"))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageStartingWith("configure failed: collective.probe.after=\"1\": ");
    }

    @Test
    void shouldNameTheKeyWhenSetFromText() {
        assertThatThrownBy(() -> isolated().set(ConfigKey.CHUNK_SIZE, "1x"))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("configure failed: chunk.size=\"1x\": expected a size such as 64KiB or 16MiB");
        assertThatThrownBy(() -> isolated().set(ConfigKey.P2P_TIMEOUT, "-1s"))
                .hasMessage("configure failed: p2p.timeout=\"-1s\": expected a duration such as 500ms or 30s");
    }

    @Test
    void shouldNameTheKeyWhenATypedSetterIsOutOfRange() {
        assertThatThrownBy(() -> isolated().p2pTimeout(Duration.ZERO))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("configure failed: p2p.timeout=\"0s\": expected a duration greater than 0s");
        assertThatThrownBy(() -> isolated().closeTimeout(Duration.ofSeconds(-1)))
                .hasMessage("configure failed: close.timeout=\"-1s\": expected a duration greater than 0s");
        assertThatThrownBy(() -> isolated().p2pTimeout(Duration.ofSeconds(Long.MAX_VALUE)))
                .hasMessage("configure failed: p2p.timeout=\"9223372036854775807s\": "
                        + "expected a duration of at most 2562047h");
        assertThatThrownBy(() -> isolated().maxFrameBytes(1000))
                .hasMessage("configure failed: max.frame.size=\"1000B\": expected a size between 4KiB and 1GiB");
        assertThatThrownBy(() -> isolated().unexpectedMaxBytes(-1))
                .hasMessage("configure failed: unexpected.max.bytes=\"-1B\": "
                        + "expected a size between 0B and 4194304TiB");
        assertThatThrownBy(() -> isolated().p2pTimeout(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void shouldRejectAChunkThatDoesNotFitInAFrameNamingBothKeys() {
        assertFails(isolated().maxFrameBytes(4 * MIB),
                "configure failed: chunk.size=\"4MiB\": expected a size of at most 4194240B "
                        + "(max.frame.size 4MiB minus 64B of frame headers)");
        assertFails(isolated().environment(env("NEXAR_CHUNK_SIZE", "16MiB")),
                "configure failed: NEXAR_CHUNK_SIZE=\"16MiB\": expected a size of at most 16777152B "
                        + "(max.frame.size 16MiB minus 64B of frame headers)");
        assertFails(isolated().systemProperties(Map.of("nexar.max.frame.size", "1MiB")).chunkBytes(1 * MIB),
                "configure failed: chunk.size=\"1MiB\": expected a size of at most 1048512B "
                        + "(nexar.max.frame.size 1MiB minus 64B of frame headers)");
    }

    @Test
    void shouldAcceptAChunkThatFillsAFrameExactly() {
        var config = isolated().maxFrameBytes(8 * KIB).chunkBytes(8 * KIB - NexarConfig.FRAME_HEADROOM_BYTES).build();

        assertThat(config.chunkBytes()).isEqualTo(8128);
    }

    @Test
    void shouldValidateTypedSetters() {
        assertThatThrownBy(() -> isolated().unexpectedMaxBytes((1L << 62) + 1))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("configure failed: unexpected.max.bytes=\"4611686018427387905B\": "
                        + "expected a size between 0B and 4194304TiB");
        assertThatThrownBy(() -> isolated().environment(Map.of("NEXAR_MAX_FRAME_SIZE", "2GiB")).build())
                .hasMessage("configure failed: NEXAR_MAX_FRAME_SIZE=\"2GiB\": expected a size between 4KiB and 1GiB");
        assertThatThrownBy(() -> isolated().p2pTimeout(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> isolated().bulk(null)).isInstanceOf(NullPointerException.class);
        assertThat(isolated().unexpectedMaxBytes(1L << 62).build().unexpectedMaxBytes()).isEqualTo(1L << 62);
    }

    @Test
    void shouldRequireAHeartbeatTimeoutAboveTheInterval() {
        assertThatThrownBy(() -> isolated().environment(Map.of("NEXAR_HEARTBEAT_INTERVAL", "2s",
                "NEXAR_HEARTBEAT_TIMEOUT", "2s")).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("NEXAR_HEARTBEAT_TIMEOUT=\"2s\"")
                .hasMessageContaining("greater than NEXAR_HEARTBEAT_INTERVAL 2s");
        assertThat(isolated().recoveryPolicy(RecoveryPolicy.AUTOMATIC).build().policy())
                .isEqualTo(RecoveryPolicy.AUTOMATIC);
    }

    // ---- the table ------------------------------------------------------------------------------------------------

    @Test
    void shouldDeriveVariableNamesFromTheKey() {
        var key = ConfigKey.UNEXPECTED_MAX_BYTES;

        assertThat(key.key()).isEqualTo("unexpected.max.bytes");
        assertThat(key.envVar()).isEqualTo("NEXAR_UNEXPECTED_MAX_BYTES");
        assertThat(key.systemProperty()).isEqualTo("nexar.unexpected.max.bytes");
        assertThat(key.flag()).isEqualTo("--unexpected-max-bytes");
        assertThat(ConfigKey.byKey("p2p.timeout")).contains(ConfigKey.P2P_TIMEOUT);
        assertThat(ConfigKey.byKey("P2P_TIMEOUT")).isEmpty();
        assertThat(Arrays.stream(ConfigKey.values()).map(ConfigKey::key))
                .containsExactly("p2p.timeout", "close.timeout", "max.frame.size", "chunk.size",
                        "unexpected.max.bytes", "collective.timeout", "collective.deterministic", "collective.verify",
                        "hang.report.after", "collective.probe.after", "allreduce.algorithm",
                        "allreduce.small.size", "allreduce.large.size", "pipeline.segment.size", "broadcast.algorithm",
                        "broadcast.large.size", "allgather.algorithm", "allgather.small.size", "bulk", "bulk.threshold",
                        "poll.window", "tls.engine", "bind.address", "advertise.address", "port.range",
                        "heartbeat.interval", "heartbeat.timeout", "recovery.policy",
                        "world.min.size", "recovery.timeout", "world.max.size", "join.elastic", "topology",
                        "formation.timeout", "cert.validity", "rpc.timeout", "rpc.max.in.flight");
    }

    @Test
    void shouldReadTopologyAndRefuseBadValuesNamingTheKey() {
        assertThat(NexarConfig.defaults().topology()).isEqualTo(Topology.FULL_MESH);
        assertThat(isolated().environment(env("NEXAR_TOPOLOGY", "K-Regular:6")).build().topology())
                .isEqualTo(Topology.kRegular(6));
        assertThat(isolated().systemProperties(Map.of("nexar.topology", " hypercube ")).build().topology())
                .isEqualTo(Topology.HYPERCUBE);
        assertThat(isolated().topology(Topology.kRegular(3)).build().describe()).contains("k-regular:3");
        for (String bad : new String[] {"k-regular:1", "k-regular:", "k-regular:x", "k-regular:65536", "ring",
                "hypercube:2", "k-regular:-4"}) {
            assertThatThrownBy(() -> isolated().environment(env("NEXAR_TOPOLOGY", bad)).build())
                    .as(bad).isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("NEXAR_TOPOLOGY").hasMessageContaining(bad)
                    .hasMessageContaining("full-mesh, hypercube or k-regular:K");
        }
        assertThatThrownBy(() -> Topology.kRegular(1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(Topology.parse(Topology.kRegular(12).toString())).isEqualTo(Topology.kRegular(12));
        // a relayed chunk carries an 18-byte envelope too
        assertThat(isolated().maxFrameBytes(4 * MIB).chunkBytes(4 * MIB - 64).build().chunkBytes())
                .isEqualTo(4 * MIB - 64);
        assertFails(isolated().maxFrameBytes(4 * MIB).chunkBytes(4 * MIB - 64).topology(Topology.HYPERCUBE),
                "configure failed: chunk.size=\"4194240B\": expected a size of at most 4194222B (max.frame.size 4MiB"
                        + " minus 82B of frame and relay headers with topology hypercube)");
    }

    @Test
    void shouldRefuseMaxWorldSizeBelowMin() {
        assertThatThrownBy(() -> isolated().worldMinSize(4).worldMaxSize(3).build())
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("world.max.size").hasMessageContaining("world.min.size 4");
    }

    @Test
    void shouldDescribeAllowedValues() {
        assertThat(Arrays.stream(ConfigKey.values()).map(ConfigKey::allowed))
                .containsExactly("> 0s", "> 0s", "4KiB to 1GiB", "1KiB to 1GiB", "0B to 4194304TiB", "> 0s",
                        "true, false", "true, false", "0s to 24h", "0s to 24h", "auto, ring, recursive-doubling, halving-doubling, pipelined-ring, rank-order", "0B to 4194304TiB",
                        "0B to 4194304TiB", "1KiB to 1GiB", "auto, binomial, scatter-allgather, pipelined-chain", "0B to 4194304TiB",
                        "auto, ring, recursive-doubling", "0B to 4194304TiB", "tls, tcp-plain, quic", "0B to 4194304TiB",
                        "0s to 1s", "auto, boringssl, jdk", "auto, an IP address, a host name",
                        "auto, an IP address, a host name", "0, PORT, FIRST-LAST (1 to 65535)", "10ms to 1h", "20ms to 1h", "abort, manual, automatic",
                        "1 to 65535", "> 0s", "1 to 65535", "true, false",
                        "full-mesh, k-regular:K (K from 2 to 65535), hypercube", "> 0s", "> 0s", "> 0s", "1 to 65536");
        assertThat(Arrays.stream(ConfigKey.values()).map(k -> k.type().displayName()))
                .containsExactly("duration", "duration", "size", "size", "size", "duration", "boolean", "boolean", "duration",
                        "duration", "enum", "size",
                        "size", "size", "enum", "size", "enum", "size", "enum", "size", "duration", "enum", "address",
                        "address", "port-range", "duration",
                        "duration", "enum", "int", "duration", "int", "boolean", "topology", "duration", "duration", "duration", "int");
    }

    @ParameterizedTest
    @EnumSource(ConfigKey.class)
    void shouldParseEveryDefaultBackToItself(ConfigKey key) {
        assertThat(key.type().format(key.parse(key.key(), key.defaultValue()))).isEqualTo(key.defaultValue());
        assertThat(key.description()).isNotBlank().doesNotContain("\n");
    }

    @Test
    void shouldParseTheOtherTypesWithExactMessages() {
        var choices = List.of(AllGatherAlgorithm.values());

        assertThat(ConfigKey.Type.INT.parse(" 42 ", List.of())).isEqualTo(42);
        assertThat(ConfigKey.Type.BOOLEAN.parse("TRUE", List.of())).isEqualTo(true);
        assertThat(ConfigKey.Type.BOOLEAN.parse("false", List.of())).isEqualTo(false);
        assertThat(ConfigKey.Type.ENUM.parse("Recursive-Doubling", choices))
                .isEqualTo(AllGatherAlgorithm.RECURSIVE_DOUBLING);
        assertThatThrownBy(() -> ConfigKey.Type.INT.parse("4x", List.of()))
                .isInstanceOf(ValueFormatException.class).hasMessage("\"4x\": expected an integer such as 8");
        assertThatThrownBy(() -> ConfigKey.Type.INT.parse("3000000000", List.of()))
                .hasMessage("\"3000000000\": expected an integer such as 8");
        assertThatThrownBy(() -> ConfigKey.Type.BOOLEAN.parse("yes", List.of()))
                .hasMessage("\"yes\": expected true or false");
        assertThatThrownBy(() -> ConfigKey.Type.ENUM.parse("rign", choices))
                .hasMessage("\"rign\": expected one of auto, ring, recursive-doubling");
    }

    @Test
    void shouldPrintTimeoutsInTheSyntaxTheyAreConfiguredIn() {
        var e = new OperationTimeoutException(ErrorContext.p2p(Operation.RECV, 2, 4, 0, 7, 1), Duration.ofMillis(1500),
                "rank 1");

        assertThat(e).hasMessage("recv on rank 2 (world 4, comm 0, tag 7, peer 1) timed out after 1500ms waiting for"
                + " rank 1");
    }
}
