package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.nexar.NexarConfig;
import io.nexar.transport.quic.bulk.BulkProbes;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connections without end to a rank's bulk-lane port (issue 16 item 2): anyone who reaches the port can open them,
 * before any certificate is seen, and each accepted one held a thread and two selectors for its 10 s setup, without a
 * limit. Now at most {@link BulkProbes#pendingAcceptLimit} are being set up at once, the oldest closed for each
 * newcomer, and the ranks' lanes go on.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BulkAcceptFloodTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final NexarConfig CONFIG = NexarConfig.builder().ignoreEnvironment().build();

    @Test
    void shouldCloseTheOldestOfAFloodOfSilentConnectionsBeyondTheLimitAndKeepTheLanesWorking() throws Exception {
        var cluster = QuicTestCluster.start(2, CONFIG, LOOPBACK); // TLS bulk lane, every message on it
        int limit = BulkProbes.pendingAcceptLimit(2);
        int flood = limit + 50;
        var sockets = new ArrayList<Socket>();
        try {
            InetSocketAddress port = cluster.transport(1).bulkAddress();
            long start = System.nanoTime();
            for (int i = 0; i < flood; i++) {
                sockets.add(new Socket(port.getAddress(), port.getPort())); // connects, never speaks
            }
            // Before the first accepted connection's setup deadline (10 s), only the bound can have closed any:
            // the oldest 50 are closed, the newest `limit` still open.
            long setupEnd = start + BulkProbes.ACCEPT_SETUP.toNanos() - TimeUnit.MILLISECONDS.toNanos(500);
            for (int i = 0; i < flood - limit; i++) {
                assertThat(closedBefore(sockets.get(i), setupEnd)).as("connection %d of %d closed by rank 1", i,
                        flood).isTrue();
            }
            long closedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            for (int i = flood - limit; i < flood; i++) {
                assertThat(stillOpen(sockets.get(i))).as("connection %d of %d, among the newest %d", i, flood, limit)
                        .isTrue();
            }
            assertThat(System.nanoTime()).as("checked before any setup deadline could close a connection")
                    .isLessThan(setupEnd);
            System.out.println("rank 1 closed the oldest " + (flood - limit) + " of " + flood
                    + " silent connections within " + closedMs + " ms and held the newest " + limit);

            cluster.run(c -> { // the ranks' own lanes are untouched
                int peer = 1 - c.rank();
                var out = new long[8192];
                Arrays.fill(out, c.rank() + 1);
                c.send(peer, 5, out);
                var in = new long[8192];
                c.recv(peer, 5, in);
                assertThat(in).containsOnly(peer + 1);
                return null;
            });
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
            cluster.close();
        }
    }

    /** True if the peer closes {@code s} (end of stream or reset) before {@code deadlineNanos}. */
    private static boolean closedBefore(Socket s, long deadlineNanos) throws IOException {
        long leftMs = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        if (leftMs <= 0) {
            return false;
        }
        s.setSoTimeout((int) leftMs);
        try {
            int b = s.getInputStream().read();
            if (b != -1) {
                fail("rank 1 sent a byte (" + b + ") to a connection that never spoke");
            }
            return true;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    /** True if {@code s} is still open: nothing to read, no end of stream, within a millisecond. */
    private static boolean stillOpen(Socket s) throws IOException {
        s.setSoTimeout(1);
        try {
            s.getInputStream().read();
            return false; // a byte or the end of stream: not an open, silent connection
        } catch (SocketTimeoutException open) {
            return true;
        } catch (IOException reset) {
            return false;
        }
    }
}
