package io.nexar.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.NexarConfig;
import io.nexar.ProtocolException;
import io.nexar.internal.collective.Collectives;
import io.nexar.internal.collective.Group;
import io.nexar.internal.protocol.AbortReason;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Protocol errors raised by a rank's receive side (its mailbox, its router, its collective engine, the frame codec)
 * name where they were seen, as every nexar error does (issue 14 item 8): the local rank and world size, the
 * communicator and sequence number the offending frame names, and the peer that sent it. Each malformed frame is
 * delivered to rank 2 of an in-process world of 3, as if rank 1 had sent it.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ReceiveSideErrorsTest {
    private static final NexarConfig CONFIG = NexarConfig.builder().ignoreEnvironment().build();
    private final InProcessFabric fabric = InProcessFabric.create(3, CONFIG);
    private final InboundRouter rank2 = fabric.endpoint(2).router();

    @Test
    void shouldNameTheLocalRankWorldCommunicatorAndPeerOfAMalformedDataFrame() {
        // the first chunk rank 2 sees of message 0 on communicator 4 starts at offset 8: a broken sender
        var chunk = new Message.Data(4, 7, 0, 16, 8, MemorySegment.ofArray(new byte[8]));

        assertThatThrownBy(() -> rank2.onMessage(1, chunk))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("decode on rank 2 (world 3, comm 4, peer 1) failed: rank 1 started message 0 at offset 8");
    }

    @Test
    void shouldNameTheLocalRankAndWorldOfARelayFrameOnAFullMesh() {
        assertThatThrownBy(() -> rank2.onMessage(1, new Message.PeerDown(0, "gone")))
                .isInstanceOf(ProtocolException.class)
                .hasMessageStartingWith("decode on rank 2 (world 3, peer 1) failed: rank 1 sent a RELAY, PEER_DOWN or"
                        + " QUIESCE frame");
    }

    @Test
    void shouldNameTheLocalRankWorldCommunicatorAndSequenceOfOneAbortTooMany() {
        new Collectives(rank2.engine(), fabric.endpoint(2), CONFIG, Group.world(2, 3)); // the world communicator
        int bound = 1024; // EarlyStore.MAX_EARLY_ABORTS
        for (long seq = 0; seq < bound; seq++) { // operations of a communicator id rank 2 never opens
            rank2.onMessage(1, new Message.CollectiveAbort(9, seq, AbortReason.FAILED, 0, -1, "x"));
        }

        assertThatThrownBy(() -> rank2.onMessage(1, new Message.CollectiveAbort(9, bound, AbortReason.FAILED, 0, -1,
                "x")))
                .isInstanceOf(ProtocolException.class)
                .hasMessageStartingWith("decode on rank 2 (world 3, comm 9, seq " + bound + ", peer 1) failed: rank 1"
                        + " sent more than " + bound + " COLLECTIVE_ABORTs");
    }

    @Test
    void shouldLetTheReceivingTransportNameItselfInADecodeError() {
        byte[] frame = {2, 0, 0, 0, (byte) 0xEE, 0}; // length 2, message type 0xEE: no such type
        var raised = (ProtocolException) catchThrowable(frame);
        assertThat(raised.getMessage()).as("the codec alone knows only the peer")
                .startsWith("decode (peer 1) unknown message type 0xee from rank 1");

        ProtocolException seen = MessageCodec.seenBy(raised, 2, 3);

        assertThat(seen.getMessage()).isEqualTo("decode on rank 2 (world 3, peer 1) unknown message type 0xee from"
                + " rank 1");
        assertThat(seen.context().peer()).isEqualTo(1);
        assertThat(seen.getStackTrace()).isEqualTo(raised.getStackTrace());
        assertThat(MessageCodec.seenBy(seen, 0, 5)).as("one that names its rank already").isSameAs(seen);
    }

    private static Throwable catchThrowable(byte[] frame) {
        try {
            MessageCodec.decode(1, MemorySegment.ofArray(frame), 1 << 20);
        } catch (ProtocolException e) {
            return e;
        }
        throw new AssertionError("decoded a frame of an unknown message type");
    }
}
