package io.nexar.internal.collective;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.DataType;
import io.nexar.Operation;
import io.nexar.ProtocolException;
import io.nexar.internal.protocol.AbortReason;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.InboundHandler.Delivery;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A member that sends empty collective chunks for operations that never come (issue 16): they take no bytes, so the
 * store bounds their number, one sender fills at most half of it (its share), and a sender with nothing held still
 * gets in. Aborts of operations that never come are bounded per sender, and one beyond the bound is a protocol
 * violation naming the sender.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class EarlyStoreBoundTest {

    /** An empty chunk of barrier {@code seq} on communicator {@code comm}. */
    private static Message.Collective empty(int comm, long seq) {
        var fp = new Fingerprint(Operation.BARRIER, DataType.U8, null, -1, 0);
        return new Message.Collective(comm, seq, 0, fp.operationCode(), fp.typeCode(), fp.opCode(), -1, 0, 0, 0,
                MemorySegment.NULL);
    }

    @Test
    void shouldBoundTheNumberOfEarlyEmptyChunksPerStoreAndPerSenderButLetEverySenderIn() {
        var engine = new CollectiveEngine(1024);
        long bound = EarlyStore.MIN_EARLY_CHUNKS;
        long share = bound / 2;
        for (long seq = 0; seq < share; seq++) { // a communicator id nobody ever opens
            assertThat(engine.onMessage(1, empty(77, seq))).as("chunk %d", seq).isEqualTo(Delivery.ACCEPTED);
        }
        assertThat(engine.onMessage(1, empty(77, share))).as("one more from the flooder").isEqualTo(Delivery.FULL);
        for (long seq = 0; seq < share; seq++) { // the flooder took its half; another sender finds the other
            assertThat(engine.onMessage(2, empty(0, seq))).as("rank 2's %d", seq).isEqualTo(Delivery.ACCEPTED);
        }
        assertThat(engine.onMessage(3, empty(0, 0))).as("a third sender, none held").isEqualTo(Delivery.ACCEPTED);
        assertThat(engine.onMessage(3, empty(0, 1))).as("its second, the store full").isEqualTo(Delivery.FULL);
        assertThat(engine.storedBytes()).isZero();
    }

    /** A FAILED abort of operation {@code seq} on communicator {@code comm}. */
    private static Message.CollectiveAbort abort(int comm, long seq) {
        return new Message.CollectiveAbort(comm, seq, AbortReason.FAILED, 0, -1, "x".repeat(1024));
    }

    @Test
    void shouldRefuseASenderWithTooManyEarlyAbortsAsAProtocolViolationNamingIt() {
        var engine = new CollectiveEngine(1024);
        int bound = EarlyStore.MAX_EARLY_ABORTS;
        for (long seq = 0; seq < bound; seq++) { // a communicator id nobody ever opens
            assertThat(engine.onMessage(1, abort(77, seq))).as("abort %d", seq).isEqualTo(Delivery.ACCEPTED);
        }
        assertThat(engine.onMessage(1, abort(77, 0))).as("a second abort of a held operation: ignored")
                .isEqualTo(Delivery.ACCEPTED);
        assertThatThrownBy(() -> engine.onMessage(1, abort(77, bound)))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("rank 1 sent more than " + bound + " COLLECTIVE_ABORTs")
                .hasMessageContaining("operation " + bound + " of communicator 77");
        for (long seq = 0; seq < bound; seq++) { // every other sender has its own bound
            assertThat(engine.onMessage(2, abort(5, seq))).as("rank 2's abort %d", seq).isEqualTo(Delivery.ACCEPTED);
        }
        assertThat(engine.store.earlyAborts(2)).isEqualTo(bound);
        engine.closeCommunicator(5, "closed by the test");
        assertThat(engine.store.earlyAborts(2)).as("dropped with their communicator").isZero();
        assertThat(engine.onMessage(2, abort(6, 0))).isEqualTo(Delivery.ACCEPTED);
    }
}
