package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.NexarConfig;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14 item 5 over the network: a peer's QUIC connection and TCP lanes being set up, and the peer being lost, are
 * {@code io.nexar.Connection} JFR events naming the peer, the lane and what happened.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class QuicJfrEventsTest {

    @Test
    void connectionSetUpAndLossAreRecorded(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("quic.jfr");
        var config = NexarConfig.builder().ignoreEnvironment().closeTimeout(Duration.ofSeconds(1)).build();
        try (var recording = new Recording()) {
            recording.enable("io.nexar.Connection");
            recording.start();
            long start = System.nanoTime();
            try (var cluster = QuicTestCluster.start(2, config, InetAddress.getLoopbackAddress())) {
                long formed = System.nanoTime();
                cluster.transport(1).close(); // rank 0 loses rank 1: it left
                cluster.transport(0).link(1).lost().get(30, TimeUnit.SECONDS);
                System.out.printf("formed in %d ms, rank 1 lost %d ms later%n", (formed - start) / 1_000_000,
                        (System.nanoTime() - formed) / 1_000_000);
            }
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("io.nexar.Connection")).toList();
        assertThat(events).as("rank 0 and rank 1 each set up the other's QUIC connection")
                .filteredOn(e -> e.getString("lane").startsWith("quic") && e.getString("state").equals("established"))
                .extracting(e -> e.getInt("peer")).containsExactlyInAnyOrder(0, 1);
        assertThat(events).as("and TCP lanes").anySatisfy(e -> {
            assertThat(e.getString("lane")).startsWith("tcp ");
            assertThat(e.getString("state")).isEqualTo("established");
        });
        assertThat(events).as("rank 0 lost rank 1").anySatisfy(e -> {
            assertThat(e.getInt("peer")).isEqualTo(1);
            assertThat(e.getString("lane")).isEqualTo("all");
            assertThat(e.getString("state")).isEqualTo("lost");
            assertThat(e.getString("detail")).isNotEmpty();
        });
    }
}
