package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.NexarConfig;
import io.nexar.ReduceOp;
import java.lang.ref.WeakReference;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A closed transport is garbage: nothing JVM-wide (a timer, a registry, a thread) keeps it, its connections and
 * their direct buffers reachable. A timer of the certificate-life warning once did, for hours, and a test JVM that
 * formed a few hundred clusters ran out of direct memory (5.6 GiB held by closed transports).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TransportReleaseTest {
    @Test
    void shouldLetAClosedTransportBeCollected() throws InterruptedException {
        WeakReference<QuicTransport> ref = formUseAndClose();
        for (int i = 0; i < 50 && ref.get() != null; i++) { // bounded: a full GC per round
            System.gc();
            Thread.sleep(20);
        }
        assertThat(ref.get()).as("a closed QuicTransport still reachable after 50 full GCs").isNull();
    }

    private static WeakReference<QuicTransport> formUseAndClose() {
        var config = NexarConfig.builder().ignoreEnvironment().build();
        try (var cluster = QuicTestCluster.start(2, config, InetAddress.getLoopbackAddress())) {
            cluster.run(c -> {
                float[] v = {1};
                c.allReduce(v, ReduceOp.SUM);
                return null;
            });
            return new WeakReference<>(cluster.transport(0));
        }
    }
}
