package io.nexar.transport.quic;

import static io.nexar.internal.protocol.WireFormat.LENGTH_PREFIX_BYTES;

import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** How the bulk lane ({@link BulkConnection}) lays out a message to send: the buffers of one frame. */
final class BulkFrames {

    private BulkFrames() {
    }

    /**
     * A message as the buffers of one frame: its header, and its payload as a view of the caller's memory (no copy).
     * The length prefix counts the whole frame.
     */
    static ByteBuffer[] frameOf(Message m) {
        MemorySegment payload = switch (m) {
            case Message.Data d -> d.payload();
            case Message.Collective c -> c.payload();
            default -> null;
        };
        if (payload == null || payload.byteSize() == 0) {
            return new ByteBuffer[] {encode(m)};
        }
        long size = MessageCodec.encodedSize(m); // checks every field, the payload size included
        MemorySegment none = payload.asSlice(0, 0);
        Message headerOnly = switch (m) {
            case Message.Data d -> new Message.Data(d.communicator(), d.tag(), d.messageSeq(), d.totalBytes(),
                    d.offset(), none);
            case Message.Collective c -> new Message.Collective(c.communicator(), c.opSeq(), c.step(), c.operation(),
                    c.dataType(), c.reduceOp(), c.root(), c.count(), c.totalBytes(), c.offset(), none);
            default -> throw new IllegalStateException("no payload in " + m.type());
        };
        ByteBuffer header = encode(headerOnly);
        header.order(ByteOrder.LITTLE_ENDIAN).putInt(0, (int) (size - LENGTH_PREFIX_BYTES));
        return new ByteBuffer[] {header, view(payload)};
    }

    /** Bytes left in {@code srcs}. */
    static long remaining(ByteBuffer[] srcs) {
        long n = 0;
        for (ByteBuffer b : srcs) {
            n += b.remaining();
        }
        return n;
    }

    private static ByteBuffer encode(Message m) {
        var b = ByteBuffer.allocate(Math.toIntExact(MessageCodec.encodedSize(m)));
        MessageCodec.encode(m, MemorySegment.ofBuffer(b));
        return b;
    }

    /** A ByteBuffer over {@code payload}, or a copy where there can be none (a heap segment of float[] etc.). */
    private static ByteBuffer view(MemorySegment payload) {
        try {
            return payload.asByteBuffer();
        } catch (UnsupportedOperationException e) {
            var copy = ByteBuffer.allocate(Math.toIntExact(payload.byteSize()));
            MemorySegment.ofBuffer(copy).copyFrom(payload);
            return copy;
        }
    }
}
