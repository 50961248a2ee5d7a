package io.nexar.transport.quic.formation;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.transport.quic.security.ClusterCa;
import io.nexar.transport.quic.security.JoinString;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A flood of connections that never speak (issue 16: 300 of them made the seed refuse real workers at its limit of
 * 256 until the flood's pre-authentication timeout ended): the seed closes the oldest unproven connection for each
 * newcomer, so real workers still form at once.
 */
@Timeout(60)
class SeedFloodTest {
    private static final int FLOOD = 300;

    @Test
    void shouldFormRealWorkersAtOnceWhileIdleConnectionsFillEverySlot() throws Exception {
        // ioTimeout above the workers' deadline (20 s): without eviction they could only get in after it
        var options = SeedOptions.builder(2).bind("127.0.0.1:0").ca(ClusterCa.generate())
                .formationDeadline(Duration.ofSeconds(50)).ioTimeout(Duration.ofSeconds(40)).build();
        assertThat(options.maxPendingConnections()).isLessThan(FLOOD);
        var flood = new ArrayList<Socket>();
        try (var seed = SeedServer.start(options)) {
            var address = JoinString.parse(seed.joinString()).seedAddress();
            for (int i = 0; i < FLOOD; i++) {
                flood.add(new Socket(address.getAddress(), address.getPort())); // connects, never speaks
            }
            long start = System.nanoTime();
            var enrolments = Workers.all(List.of(Workers.start(seed.joinString(), -1, "127.0.0.1", 9510),
                    Workers.start(seed.joinString(), -1, "127.0.0.1", 9520)));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            System.out.println("2 workers formed " + took.toMillis() + " ms after a flood of " + FLOOD
                    + " idle connections (limit " + options.maxPendingConnections() + ", ioTimeout 40 s)");
            assertThat(enrolments).extracting(Enrolment::rank).containsExactlyInAnyOrder(0, 1);
            assertThat(took).as("well below the flood's ioTimeout").isLessThan(Duration.ofSeconds(15));
        } finally {
            for (Socket s : flood) {
                s.close();
            }
        }
    }
}
