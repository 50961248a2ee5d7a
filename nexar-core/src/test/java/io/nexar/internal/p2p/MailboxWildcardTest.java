package io.nexar.internal.p2p;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.ErrorContext;
import io.nexar.Operation;
import io.nexar.OperationCancelledException;
import io.nexar.Status;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.InboundHandler.Delivery;
import io.nexar.internal.util.Deadline;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Wildcard matching driven as a transport would: MPI's order across senders and lanes, probes, cancellation, and the
 * unexpected store's bound when the receives waiting are wildcards.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class MailboxWildcardTest {
    private static final int ANY = PendingReceive.ANY;
    /** World ranks 0, 1, 2 in the world's numbering. */
    private static final int[] WORLD = {0, 1, 2};
    private final Mailbox mailbox = new Mailbox(1024);

    private static Message.Data data(int tag, long seq, long total, byte... payload) {
        return new Message.Data(0, tag, seq, total, 0, MemorySegment.ofArray(payload));
    }

    private PendingReceive post(int src, int tag, byte[] into) {
        return mailbox.post(0, src, tag, WORLD, MemorySegment.ofArray(into),
                ErrorContext.p2p(Operation.RECV, 0, 3, 0, tag, src));
    }

    private Status await(PendingReceive r) {
        return mailbox.await(r, Deadline.after(Duration.ofSeconds(5)), null);
    }

    @Test
    void shouldTakeEachSendersMessagesInSendOrderAndSendersInArrivalOrder() {
        // rank 1's message 1 overtakes its message 0 (another lane); rank 2's message 0 arrives in between
        mailbox.onMessage(1, data(7, 1, 1, (byte) 11));
        mailbox.onMessage(2, data(8, 0, 1, (byte) 20));
        assertThat(mailbox.iprobe(0, ANY, ANY, WORLD, ErrorContext.of(Operation.PROBE)))
                .as("rank 2's message is the only matchable one").isEqualTo(new Status(2, 8, 1));
        mailbox.onMessage(1, data(9, 0, 1, (byte) 10));
        var b = new byte[1];
        int[] expected = {20, 10, 11};
        int[] sources = {2, 1, 1};
        int[] tags = {8, 9, 7};
        for (int i = 0; i < 3; i++) {
            assertThat(await(post(ANY, ANY, b))).isEqualTo(new Status(sources[i], tags[i], 1));
            assertThat(b[0]).isEqualTo((byte) expected[i]);
        }
        assertThat(mailbox.storedBytes()).isZero();
    }

    @Test
    void shouldGiveAMessageToTheEarliestPostedMatchingReceive() {
        byte[][] got = new byte[4][1];
        PendingReceive anySource = post(ANY, 5, got[0]);
        PendingReceive specific = post(1, 5, got[1]);
        PendingReceive anyTag = post(1, ANY, got[2]);
        PendingReceive other = post(ANY, 6, got[3]);
        mailbox.onMessage(1, data(5, 0, 1, (byte) 1)); // all but other match: anySource was posted first
        mailbox.onMessage(1, data(5, 1, 1, (byte) 2)); // specific, posted before anyTag
        mailbox.onMessage(1, data(6, 2, 1, (byte) 3)); // anyTag, posted before other
        mailbox.onMessage(2, data(6, 0, 1, (byte) 4)); // other
        assertThat(await(anySource)).isEqualTo(new Status(1, 5, 1));
        assertThat(await(specific)).isEqualTo(new Status(1, 5, 1));
        assertThat(await(anyTag)).isEqualTo(new Status(1, 6, 1));
        assertThat(await(other)).isEqualTo(new Status(2, 6, 1));
        assertThat(got).isDeepEqualTo(new byte[][] {{1}, {2}, {3}, {4}});
    }

    @Test
    void shouldTakeTheFirstChunkOfASenderThatAWildcardReceiveOrAProbeWaitsFor() throws Exception {
        assertThat(mailbox.onMessage(2, data(0, 0, 1000, new byte[1000]))).isEqualTo(Delivery.ACCEPTED);
        // the store is nearly full and nothing waits for rank 1: its in-order message is refused
        assertThat(mailbox.onMessage(1, data(0, 0, 100, new byte[100]))).isEqualTo(Delivery.FULL);
        var r = post(ANY, 3, new byte[100]); // matches neither message, but may need rank 1's next ones
        assertThat(mailbox.onMessage(1, data(0, 0, 100, new byte[100]))).isEqualTo(Delivery.ACCEPTED);
        assertThat(mailbox.storedBytes()).as("one chunk over the bound").isEqualTo(1100);
        assertThat(mailbox.cancel(r)).isTrue();
        assertThatThrownBy(() -> await(r)).isInstanceOf(OperationCancelledException.class);

        assertThat(mailbox.onMessage(1, data(4, 1, 100, new byte[100]))).isEqualTo(Delivery.FULL);
        var probe = Thread.ofVirtual().start(() -> mailbox.probe(0, 1, 4, WORLD,
                Deadline.after(Duration.ofSeconds(5)), ErrorContext.p2p(Operation.PROBE, 0, 3, 0, 4, 1)));
        // the transport retries the refused chunk; it is taken once the probe waits
        long start = System.nanoTime();
        while (mailbox.onMessage(1, data(4, 1, 100, new byte[100])) == Delivery.FULL) {
            if (System.nanoTime() - start > TimeUnit.SECONDS.toNanos(5)) {
                throw new AssertionError("rank 1's chunk was still refused 5 s after a probe for rank 1 was started"
                        + " (the probe never waited for it)");
            }
            Thread.yield();
        }
        probe.join();
        assertThat(mailbox.iprobe(0, 1, ANY, WORLD, ErrorContext.of(Operation.PROBE)))
                .as("the oldest of rank 1").isEqualTo(new Status(1, 0, 100));
    }

    @Test
    void shouldDropTheRestOfAMessageWhoseReceiveWasCancelledMidWay() {
        var r = post(ANY, ANY, new byte[4]);
        mailbox.onMessage(1, data(0, 0, 4, (byte) 1, (byte) 2));
        assertThat(mailbox.cancel(r)).isTrue();
        assertThat(mailbox.cancel(r)).isFalse();
        mailbox.onMessage(1, new Message.Data(0, 0, 0, 4, 2, MemorySegment.ofArray(new byte[] {3, 4})));
        mailbox.onMessage(1, data(0, 1, 1, (byte) 9));
        var b = new byte[4];
        assertThat(await(post(1, 0, b))).isEqualTo(new Status(1, 0, 1));
        assertThat(b[0]).isEqualTo((byte) 9);
        assertThat(mailbox.storedBytes()).isZero();
    }
}
