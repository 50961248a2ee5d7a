package io.nexar.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.ReduceOp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Issue 14 item 5: collectives and point-to-point operations are JFR events with their fields filled in. */
@Timeout(60)
class JfrEventsTest {

    @Test
    void collectivesAndPointToPointAreRecorded(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("nexar.jfr");
        try (var recording = new Recording()) {
            recording.enable("io.nexar.Collective").withThreshold(Duration.ZERO);
            recording.enable("io.nexar.PointToPoint").withThreshold(Duration.ZERO);
            recording.start();
            try (var cluster = LocalCluster.start(3)) {
                cluster.onEachRank(c -> {
                    long[] v = {c.rank() + 1L};
                    c.allReduce(v, ReduceOp.SUM);
                    int next = (c.rank() + 1) % c.worldSize();
                    int prev = (c.rank() + c.worldSize() - 1) % c.worldSize();
                    c.send(next, 5, new byte[24]);
                    c.recv(prev, 5, new byte[24]);
                    return v[0];
                });
            }
            recording.stop();
            recording.dump(file);
        }
        assertThat(Files.size(file)).isPositive();
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        var collectives = events.stream().filter(e -> e.getEventType().getName().equals("io.nexar.Collective"))
                .filter(e -> e.getString("operation").equals("allReduce")).toList();
        assertThat(collectives).hasSize(3);
        for (RecordedEvent e : collectives) {
            assertThat(e.getInt("worldSize")).isEqualTo(3);
            assertThat(e.getLong("count")).isEqualTo(1);
            assertThat(e.getString("dataType")).isEqualTo("I64");
            assertThat(e.getString("outcome")).isEqualTo("ok");
            assertThat(e.getLong("bytesSent")).isPositive();
        }
        assertThat(collectives.stream().map(e -> e.getInt("rank"))).containsExactlyInAnyOrder(0, 1, 2);
        var p2p = events.stream().filter(e -> e.getEventType().getName().equals("io.nexar.PointToPoint")).toList();
        assertThat(p2p.stream().filter(e -> e.getString("operation").equals("send"))).hasSize(3)
                .allSatisfy(e -> assertThat(e.getLong("bytes")).isEqualTo(24));
        assertThat(p2p.stream().filter(e -> e.getString("operation").equals("recv"))).hasSize(3)
                .allSatisfy(e -> {
                    assertThat(e.getInt("tag")).isEqualTo(5);
                    assertThat(e.getLong("bytes")).isEqualTo(24);
                    assertThat(e.getString("outcome")).isEqualTo("ok");
                });
    }
}
