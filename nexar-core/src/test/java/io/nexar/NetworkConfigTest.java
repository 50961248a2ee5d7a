package io.nexar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Settings bind.address, advertise.address and port.range: their syntax, defaults and errors. */
@Timeout(10)
class NetworkConfigTest {

    private static NexarConfig fromEnv(Map<String, String> env) {
        return NexarConfig.builder().environment(env).systemProperties(Map.of()).build();
    }

    @Test
    void shouldDefaultToAutomaticAddressesAndAnyPort() {
        var c = NexarConfig.defaults();
        assertThat(c.bindAddress()).isEqualTo("auto");
        assertThat(c.advertiseAddress()).isEqualTo("auto");
        assertThat(c.portRange()).isEqualTo(PortRange.ANY);
        assertThat(c.portRange().isAny()).isTrue();
    }

    @Test
    void shouldReadAddressesAndRangesFromTheEnvironment() {
        var c = fromEnv(Map.of("NEXAR_BIND_ADDRESS", " [fd00::5] ", "NEXAR_ADVERTISE_ADDRESS", "node-3.train.svc",
                "NEXAR_PORT_RANGE", "40000 - 40100"));
        assertThat(c.bindAddress()).isEqualTo("fd00::5");
        assertThat(c.advertiseAddress()).isEqualTo("node-3.train.svc");
        assertThat(c.portRange()).isEqualTo(new PortRange(40000, 40100));
        assertThat(c.portRange().size()).isEqualTo(101);
        assertThat(fromEnv(Map.of("NEXAR_PORT_RANGE", "7000")).portRange()).isEqualTo(new PortRange(7000, 7000));
        assertThat(fromEnv(Map.of("NEXAR_BIND_ADDRESS", "AUTO")).bindAddress()).isEqualTo("auto");
        assertThat(c.describe()).contains("bind.address              fd00::5", "port.range                40000-40100");
    }

    @Test
    void shouldRoundTripThroughTheBuilderAndText() {
        var c = NexarConfig.builder().ignoreEnvironment().bindAddress("10.0.0.5").advertiseAddress("203.0.113.7")
                .portRange(PortRange.parse("40000-40010")).build();
        var again = c.toBuilder().build();
        assertThat(again).isEqualTo(c);
        assertThat(again.portRange().toString()).isEqualTo("40000-40010");
        assertThat(PortRange.parse(PortRange.ANY.toString())).isEqualTo(PortRange.ANY);
    }

    @Test
    void shouldRejectMalformedValuesNamingTheVariable() {
        assertThatThrownBy(() -> fromEnv(Map.of("NEXAR_PORT_RANGE", "40100-40000")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("configure failed: NEXAR_PORT_RANGE=\"40100-40000\": expected a port such as 40000, a"
                        + " range such as 40000-40100 (ports 1 to 65535) or 0 for any");
        assertThatThrownBy(() -> fromEnv(Map.of("NEXAR_PORT_RANGE", "70000"))).hasMessageContaining("1 to 65535");
        assertThatThrownBy(() -> fromEnv(Map.of("NEXAR_PORT_RANGE", "x-y"))).hasMessageContaining("NEXAR_PORT_RANGE");
        assertThatThrownBy(() -> fromEnv(Map.of("NEXAR_BIND_ADDRESS", "10.0.0.300")))
                .hasMessage("configure failed: NEXAR_BIND_ADDRESS=\"10.0.0.300\": expected an IP address such as"
                        + " 10.0.0.5 or fd00::5, a host name, or auto");
        assertThatThrownBy(() -> fromEnv(Map.of("NEXAR_ADVERTISE_ADDRESS", "host name"))).hasMessageContaining(
                "NEXAR_ADVERTISE_ADDRESS=\"host name\"");
        assertThatThrownBy(() -> fromEnv(Map.of("NEXAR_ADVERTISE_ADDRESS", "10.0.0.5:7000")))
                .hasMessageContaining("expected an IP address");
        assertThatThrownBy(() -> NexarConfig.builder().ignoreEnvironment().bindAddress("-bad-"))
                .hasMessageContaining("bind.address=\"-bad-\"");
        assertThatThrownBy(() -> new PortRange(0, 5)).isInstanceOf(IllegalArgumentException.class);
    }
}
