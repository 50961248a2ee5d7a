package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.ClusterFormationException;
import io.nexar.PortRange;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A joining member's listeners: bound once within setting {@code port.range} (or below the kernel's ephemeral range
 * for any port), kept bound until handed over or closed, and a clear error naming the setting when no port is free.
 */
@Timeout(30)
class ListenersTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    /** A base port below the ephemeral range, random per run (printed) so parallel runs rarely meet. */
    static int basePort(String test) {
        long seed = new Random().nextLong();
        System.out.println(test + " random seed=" + seed);
        int low = PortReservation.ephemeralLow();
        int top = low > 30_000 ? low - 200 : 30_000;
        return 20_000 + new Random(seed).nextInt(top - 20_000);
    }

    @Test
    void shouldBindBothListenersWithinThePortRangeAndKeepThemBound() throws Exception {
        int base = basePort("shouldBindBothListenersWithinThePortRangeAndKeepThemBound");
        var range = new PortRange(base, base + 9);
        try (var l = Listeners.bind(LOOPBACK, range, true, "port.range")) {
            int udp = l.udpAddress().getPort();
            int tcp = l.tcpAddress().getPort();
            assertThat(udp).isBetween(range.first(), range.last());
            assertThat(tcp).isBetween(range.first(), range.last());
            assertThat(l.udpAddress().getAddress()).isEqualTo(LOOPBACK);
            // held, not released: binding them again fails
            assertThatThrownBy(() -> new DatagramSocket(new InetSocketAddress(LOOPBACK, udp)).close())
                    .isInstanceOf(IOException.class);
            assertThatThrownBy(() -> new ServerSocket(tcp, 1, LOOPBACK).close()).isInstanceOf(IOException.class);
        }
    }

    @Test
    void shouldSkipPortsInUseAndTakeTheNextOneOfTheRange() throws Exception {
        int base = basePort("shouldSkipPortsInUseAndTakeTheNextOneOfTheRange");
        try (var takenUdp = new DatagramSocket(new InetSocketAddress(LOOPBACK, base));
             var takenTcp = new ServerSocket(base, 1, LOOPBACK);
             var l = Listeners.bind(LOOPBACK, new PortRange(base, base + 5), true, "port.range")) {
            assertThat(takenUdp.getLocalPort()).isEqualTo(takenTcp.getLocalPort());
            assertThat(l.udpAddress().getPort()).isBetween(base + 1, base + 5);
            assertThat(l.tcpAddress().getPort()).isBetween(base + 1, base + 5);
        }
    }

    @Test
    void shouldNameTheSettingWhenNoPortOfTheRangeIsFree() throws Exception {
        int base = basePort("shouldNameTheSettingWhenNoPortOfTheRangeIsFree");
        try (var a = new DatagramSocket(new InetSocketAddress(LOOPBACK, base));
             var b = new DatagramSocket(new InetSocketAddress(LOOPBACK, base + 1))) {
            assertThatThrownBy(() -> Listeners.bind(LOOPBACK, new PortRange(base, base + 1), true,
                    "NEXAR_PORT_RANGE"))
                    .isInstanceOf(ClusterFormationException.class)
                    .hasMessage("join failed: no free UDP (QUIC) port on 127.0.0.1 in NEXAR_PORT_RANGE=" + base + "-"
                            + (base + 1) + " (2 ports, all in use): widen the range or free a port");
        }
        try (var tcp = new ServerSocket(base, 1, LOOPBACK)) {
            assertThatThrownBy(() -> Listeners.bind(LOOPBACK, new PortRange(base, base), true, "port.range"))
                    .hasMessageContaining("no free TCP (lanes) port on 127.0.0.1 in port.range=" + base
                            + " (1 port, in use)");
            // the UDP listener bound before the failure was released
            new DatagramSocket(new InetSocketAddress(LOOPBACK, base)).close();
        }
    }

    @Test
    void shouldPickAnyPortBelowTheEphemeralRange() {
        int low = PortReservation.ephemeralLow();
        try (var l = Listeners.bind(LOOPBACK, PortRange.ANY, false, "port.range")) {
            assertThat(l.tcpAddress()).isNull();
            if (PortReservation.randomRange(low) != null) {
                assertThat(l.udpAddress().getPort()).isBetween(PortReservation.LOWEST, low - 1);
            }
        }
        assertThat(PortReservation.randomRange(-1)).isNull();
        assertThat(PortReservation.randomRange(PortReservation.LOWEST + 10)).isNull();
        assertThat(PortReservation.randomRange(32768)).containsExactly(PortReservation.LOWEST, 32768);
    }

    @Test
    void shouldBindTheGivenAddressIpv4OrIpv6() throws Exception {
        try (var v4 = Listeners.bind(InetAddress.getByName("127.0.0.1"), PortRange.ANY, true, "port.range")) {
            assertThat(v4.udpAddress().getAddress().getHostAddress()).isEqualTo("127.0.0.1");
            assertThat(v4.tcpAddress().getAddress().getHostAddress()).isEqualTo("127.0.0.1");
        }
        InetAddress v6loopback = InetAddress.getByName("::1");
        try (var probe = new ServerSocket(0, 1, v6loopback)) {
            Assumptions.assumeTrue(probe.isBound());
        } catch (IOException e) {
            Assumptions.abort("this machine has no IPv6 loopback: " + e);
        }
        try (var v6 = Listeners.bind(v6loopback, PortRange.ANY, true, "port.range")) {
            assertThat(v6.udpAddress().getAddress()).isEqualTo(v6loopback);
            assertThat(v6.tcpAddress().getAddress()).isEqualTo(v6loopback);
        }
    }
}
