package io.nexar.transport.quic.formation;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.transport.quic.security.ClusterCa;
import io.nexar.transport.quic.security.JoinString;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
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

    /**
     * 1,000 bogus connection attempts (junk bytes of random length, a TLS-looking first byte, nothing at all; closed
     * at once or left open) from 8 threads while 3 real workers enrol: the workers form, and well within their
     * deadline.
     */
    @Test
    void shouldFormRealWorkersWhileAThousandBogusConnectionAttemptsArrive() throws Exception {
        long seed = System.nanoTime();
        System.out.println("SeedFloodTest seed " + seed);
        var options = SeedOptions.builder(3).bind("127.0.0.1:0").ca(ClusterCa.generate())
                .formationDeadline(Duration.ofSeconds(50)).ioTimeout(Duration.ofSeconds(40)).build();
        try (var seedServer = SeedServer.start(options)) {
            var address = JoinString.parse(seedServer.joinString()).seedAddress();
            var attempts = new AtomicInteger();
            var open = new ArrayList<Socket>();
            var attackers = new ArrayList<Thread>();
            for (int t = 0; t < 8; t++) {
                var random = new Random(seed + t);
                attackers.add(Thread.ofVirtual().start(() -> {
                    while (attempts.getAndIncrement() < 1000) {
                        bogusAttempt(address, random, open);
                    }
                }));
            }
            long start = System.nanoTime();
            var enrolments = Workers.all(List.of(Workers.start(seedServer.joinString(), -1, "127.0.0.1", 9530),
                    Workers.start(seedServer.joinString(), -1, "127.0.0.1", 9540),
                    Workers.start(seedServer.joinString(), -1, "127.0.0.1", 9550)));
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            for (Thread t : attackers) {
                t.join();
            }
            synchronized (open) {
                for (Socket s : open) {
                    s.close();
                }
            }
            System.out.println("3 workers formed " + took.toMillis() + " ms into 1000 bogus connection attempts");
            assertThat(enrolments).extracting(Enrolment::rank).containsExactlyInAnyOrder(0, 1, 2);
            assertThat(took).as("within the workers' deadline, with room").isLessThan(Workers.DEADLINE);
        }
    }

    /** One bogus attempt: connects, sends junk (or nothing), and closes or keeps the connection open. */
    private static void bogusAttempt(InetSocketAddress address, Random random, List<Socket> open) {
        try {
            var s = new Socket(address.getAddress(), address.getPort());
            int kind = random.nextInt(4);
            if (kind > 0) {
                var junk = new byte[1 + random.nextInt(300)];
                random.nextBytes(junk);
                if (kind == 2) {
                    junk[0] = 0x16; // looks like the start of a TLS handshake record
                }
                s.getOutputStream().write(junk);
            }
            if (random.nextInt(4) == 0) {
                synchronized (open) {
                    open.add(s); // held open: it takes a pending slot until evicted or timed out
                }
            } else {
                s.close();
            }
        } catch (IOException refusedOrReset) {
            // the seed may close a bogus connection before its junk is written: that is what it should do
        }
    }
}
