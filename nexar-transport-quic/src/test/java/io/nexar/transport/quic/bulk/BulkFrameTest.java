package io.nexar.transport.quic.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import io.nexar.internal.protocol.WireFormat;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The bulk lane writes a frame as its header plus a view of the payload: the same bytes as the codec's frame. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class BulkFrameTest {

    @Test
    void shouldWriteTheCodecsBytesForEveryKindOfPayload() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment offHeap = arena.allocate(1000);
            for (int i = 0; i < 1000; i++) {
                offHeap.set(WireFormat.BYTE, i, (byte) (i * 7));
            }
            float[] floats = new float[300];
            for (int i = 0; i < floats.length; i++) {
                floats[i] = i * 0.5f;
            }
            byte[] bytes = new byte[777];
            bytes[5] = 42;
            List<Message> messages = List.of(
                    new Message.Hello(WireFormat.VERSION, 1, 4, 0x1234_5678_9abcL),
                    new Message.Data(3, 9, 17, 5000, 1000, offHeap),
                    new Message.Data(3, 9, 18, 1200, 0, MemorySegment.ofArray(floats)), // no ByteBuffer view: copied
                    new Message.Data(0, 0, 0, 0, 0, MemorySegment.ofArray(new byte[0])),
                    new Message.Collective(2, 11, 3, 1, 2, 0, -1, 194, 777, 0, MemorySegment.ofArray(bytes)),
                    new Message.Heartbeat(5, 6));
            for (Message m : messages) {
                ByteBuffer[] parts = BulkFrames.frameOf(m);
                ByteBuffer joined = ByteBuffer.allocate(Math.toIntExact(MessageCodec.encodedSize(m)));
                for (ByteBuffer p : parts) {
                    joined.put(p.duplicate());
                }
                assertThat(joined.hasRemaining()).as("%s: the parts fill the frame", m.type()).isFalse();
                var expected = new byte[joined.capacity()];
                MessageCodec.encode(m, MemorySegment.ofArray(expected));
                assertThat(joined.array()).as("%s", m.type()).isEqualTo(expected);
            }
        }
    }
}
