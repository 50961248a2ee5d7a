package io.nexar.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.Communicator;
import io.nexar.NexarConfig;
import io.nexar.PeerFailedException;
import io.nexar.RecoveryPolicy;
import io.nexar.ReduceOp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14 item 5: collectives, point-to-point operations, peer failures and membership changes are JFR events with
 * their fields filled in (connections, which only the network transport has: {@code QuicJfrEventsTest}).
 */
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

    @Test
    void aPeerFailureAndAShrinkAreRecorded(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("nexar.jfr");
        var config = NexarConfig.builder().ignoreEnvironment().recoveryPolicy(RecoveryPolicy.MANUAL)
                .collectiveTimeout(Duration.ofSeconds(20)).recoveryTimeout(Duration.ofSeconds(20)).build();
        try (var recording = new Recording()) {
            recording.enable("io.nexar.PeerFailure");
            recording.enable("io.nexar.Membership");
            recording.start();
            try (var cluster = LocalCluster.start(3, config, Duration.ofSeconds(45))) {
                var crashed = new CountDownLatch(1);
                cluster.onEachRank(c -> {
                    if (c.rank() == 2) {
                        cluster.crash(2);
                        crashed.countDown();
                        return 0;
                    }
                    assertThat(crashed.await(20, TimeUnit.SECONDS)).isTrue();
                    try {
                        c.barrier(); // fails naming rank 2 (or passes, if it ran before the crash was known)
                    } catch (PeerFailedException e) {
                        // expected
                    }
                    Communicator survivors = c.shrink();
                    return survivors.worldSize();
                });
            }
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        var failures = events.stream().filter(e -> e.getEventType().getName().equals("io.nexar.PeerFailure"))
                .filter(e -> e.getInt("peer") == 2).toList(); // closing the cluster adds "left" events of the others
        assertThat(failures).as("ranks 0 and 1 each learn that rank 2 failed").hasSize(2)
                .allSatisfy(e -> assertThat(e.getString("reason")).contains("crashed"));
        var shrinks = events.stream().filter(e -> e.getEventType().getName().equals("io.nexar.Membership"))
                .filter(e -> e.getString("kind").equals("shrink")).toList();
        assertThat(shrinks).as("one shrink per survivor").hasSize(2)
                .allSatisfy(e -> assertThat(e.getString("detail")).startsWith("to 2 ranks as communicator "));
    }

    @Test
    void anAutomaticRecoveryIsRecorded(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("nexar.jfr");
        var config = NexarConfig.builder().ignoreEnvironment().recoveryPolicy(RecoveryPolicy.AUTOMATIC)
                .collectiveTimeout(Duration.ofSeconds(20)).recoveryTimeout(Duration.ofSeconds(20)).build();
        try (var recording = new Recording()) {
            recording.enable("io.nexar.Membership");
            recording.start();
            try (var cluster = LocalCluster.start(3, config, Duration.ofSeconds(45))) {
                var crashed = new CountDownLatch(1);
                var sizes = cluster.onEachRank(c -> {
                    if (c.rank() == 2) {
                        cluster.crash(2);
                        crashed.countDown();
                        return 0;
                    }
                    assertThat(crashed.await(20, TimeUnit.SECONDS)).isTrue();
                    try {
                        c.barrier(); // fails on rank 2's crash, or is the first call of the rebuilt world
                    } catch (PeerFailedException e) {
                        // the announcement of the rebuild: the next call runs on the survivors
                    }
                    c.barrier();
                    return c.worldSize();
                });
                assertThat(sizes.get(0)).isEqualTo(2);
            }
            recording.stop();
            recording.dump(file);
        }
        var recoveries = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("io.nexar.Membership"))
                .filter(e -> e.getString("kind").equals("recovery")).toList();
        assertThat(recoveries).as("one per survivor").hasSize(2).allSatisfy(e -> {
            assertThat(e.getInt("communicator")).isZero();
            assertThat(e.getString("detail")).contains("without world ranks [2]").contains("2 ranks");
        });
    }
}
