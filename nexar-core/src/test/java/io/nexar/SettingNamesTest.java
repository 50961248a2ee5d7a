package io.nexar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.internal.cluster.LaunchEnvironment;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Issue 18 item 4: unknown {@code NEXAR_*} variables and {@code nexar.*} properties are errors with a did-you-mean. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SettingNamesTest {

    private static NexarConfig build(Map<String, String> env, Map<String, String> props) {
        return NexarConfig.builder().ignoreEnvironment().environment(env).systemProperties(props).build();
    }

    @Test
    void shouldRejectAMisspeltSystemPropertySuggestingTheSetting() {
        assertThatThrownBy(() -> build(Map.of(), Map.of("nexar.p2p.timout", "5s")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("configure failed: system property nexar.p2p.timout is not a nexar setting; did you mean"
                        + " nexar.p2p.timeout? (docs/config.md lists them)")
                .satisfies(e -> {
                    var ice = (InvalidConfigurationException) e;
                    assertThat(ice.setting()).isEqualTo("nexar.p2p.timout");
                    assertThat(ice.value()).isEqualTo("5s");
                    assertThat(ice.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
                });
    }

    @Test
    void shouldRejectAnUnknownEnvironmentVariableSuggestingTheSetting() {
        assertThatThrownBy(() -> build(Map.of("NEXAR_HEARTBEAT_TIMOUT", "3s"), Map.of()))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("environment variable NEXAR_HEARTBEAT_TIMOUT is not a nexar setting; did you"
                        + " mean NEXAR_HEARTBEAT_TIMEOUT?");
    }

    @Test
    void shouldSuggestALaunchVariable() {
        assertThatThrownBy(() -> build(Map.of("NEXAR_RANKS", "2"), Map.of()))
                .hasMessageContaining("NEXAR_RANKS is not a nexar setting; did you mean NEXAR_RANK?");
    }

    @Test
    void shouldSuggestNothingForANameFarFromEverySetting() {
        assertThatThrownBy(() -> build(Map.of("NEXAR_FLUX_CAPACITOR", "on"), Map.of()))
                .hasMessage("configure failed: environment variable NEXAR_FLUX_CAPACITOR is not a nexar setting"
                        + " (docs/config.md lists them)");
    }

    @Test
    void shouldIgnoreCaseAndSeparatorsWhenSuggesting() {
        assertThatThrownBy(() -> build(Map.of(), Map.of("nexar.P2P-Timeout", "5s")))
                .hasMessageContaining("did you mean nexar.p2p.timeout?");
    }

    @Test
    void shouldReportTheFirstUnknownNameInSortedOrder() {
        assertThatThrownBy(() -> build(Map.of("NEXAR_ZZ", "1", "NEXAR_AA", "1"), Map.of()))
                .hasMessageContaining("NEXAR_AA");
    }

    @ParameterizedTest
    @EnumSource(ConfigKey.class)
    void shouldAcceptEverySettingsOwnNames(ConfigKey key) {
        var env = new HashMap<String, String>();
        env.put(key.envVar(), key.defaultValue());
        assertThatCode(() -> build(env, Map.of(key.systemProperty(), key.defaultValue()))).doesNotThrowAnyException();
    }

    @Test
    void shouldAcceptTheLaunchAndLauncherVariablesAndTestProperties() {
        var env = new HashMap<String, String>();
        LaunchEnvironment.VARIABLES.forEach(v -> env.put(v, "anything"));
        env.put("NEXAR_WORKER_JAVA_OPTS", "-Xmx1g");
        env.put("NEXAR_JAVA_OPTS", "-Xmx1g");
        env.put("NEXAR_LOG_LEVEL", "debug"); // the nexar command's log level (docs/logging.md)
        env.put("PATH", "/usr/bin");
        env.put("nexar_lower_case", "not ours"); // only NEXAR_ in upper case is nexar's namespace
        var props = Map.of("nexar.test.seed", "42", "nexar.netns.hold", "true", "nexar.regenerateDocs", "false",
                "java.version", "25", "nexarish", "x");
        assertThatCode(() -> build(env, props)).doesNotThrowAnyException();
    }

    @Test
    void shouldNotCheckNamesWhenTheEnvironmentIsIgnoredOrSetByTheBuilder() {
        assertThatCode(() -> NexarConfig.builder().environment(Map.of("NEXAR_BOGUS", "1")).ignoreEnvironment()
                .build()).doesNotThrowAnyException();
        var config = NexarConfig.defaults();
        assertThatCode(() -> config.toBuilder().build()).doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"nexar.p2p.timeout", "NEXAR_P2P_TIMEOUT"})
    void shouldMeasureEditDistance(String name) {
        assertThat(SettingNames.distance(name, name)).isZero();
        assertThat(SettingNames.distance("timout", "timeout")).isEqualTo(1);
        assertThat(SettingNames.distance("kitten", "sitting")).isEqualTo(3);
        assertThat(SettingNames.distance("", "abc")).isEqualTo(3);
    }
}
