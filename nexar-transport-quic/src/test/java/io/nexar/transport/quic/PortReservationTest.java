package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Ports a joining member publishes are picked below the kernel's ephemeral range, where no port-0 bind lands. */
@Timeout(10)
class PortReservationTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @Test
    void picksFreePortsBelowTheEphemeralRangeThatCanBeBoundAgain() throws Exception {
        int low = PortReservation.ephemeralLow();
        for (int i = 0; i < 20; i++) {
            int udp = PortReservation.udp(LOOPBACK);
            int tcp = PortReservation.tcp(LOOPBACK);
            if (PortReservation.randomRange(low) != null) {
                assertThat(udp).isBetween(PortReservation.LOWEST, low - 1);
                assertThat(tcp).isBetween(PortReservation.LOWEST, low - 1);
            }
            try (var d = new DatagramSocket(new InetSocketAddress(LOOPBACK, udp)); var s = new ServerSocket()) {
                s.setReuseAddress(true);
                s.bind(new InetSocketAddress(LOOPBACK, tcp));
                assertThat(d.getLocalPort()).isEqualTo(udp);
                assertThat(s.getLocalPort()).isEqualTo(tcp);
            }
        }
    }

    @Test
    void fallsBackToTheKernelsChoiceWithoutRoomBelowTheEphemeralRange() {
        assertThat(PortReservation.randomRange(-1)).isNull();
        assertThat(PortReservation.randomRange(PortReservation.LOWEST + 10)).isNull();
        assertThat(PortReservation.randomRange(32768)).containsExactly(PortReservation.LOWEST, 32768);
    }
}
