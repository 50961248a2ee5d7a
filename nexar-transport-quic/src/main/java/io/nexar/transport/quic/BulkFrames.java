package io.nexar.transport.quic;

import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import io.nexar.internal.protocol.WireFormat;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** How the bulk lane ({@link BulkConnection}) lays out a message to send: the buffers of one frame. */
final class BulkFrames {

    private BulkFrames() {
    }

    /**
     * Each sending thread's buffer for the header of a frame with a payload. A sender waits until its frame is taken
     * whole into the connection's output buffers (or copied for the writer, {@link BulkWriter}), so a thread's
     * header is never needed again once it sends its next frame: one buffer per thread suffices, and a small
     * message's header allocates nothing.
     */
    private static final ThreadLocal<ByteBuffer> HEADER = ThreadLocal.withInitial(() ->
            ByteBuffer.allocateDirect(Math.max(WireFormat.DATA_HEADER_BYTES, WireFormat.COLLECTIVE_HEADER_BYTES))
                    .order(ByteOrder.LITTLE_ENDIAN));

    /**
     * A message as the buffers of one frame: its header, and its payload as a view of the caller's memory (no copy).
     * The length prefix counts the whole frame. The header of a Data or Collective frame is the calling thread's
     * buffer (see {@link #HEADER}): valid until this thread's next call.
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
        ByteBuffer header = HEADER.get().clear();
        int n = (int) MessageCodec.encodeHeader(m, MemorySegment.ofBuffer(header)); // checks every field
        header.limit(n);
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

    /**
     * A ByteBuffer over {@code payload}, or a copy where there can be none: a heap segment over an array other than
     * {@code byte[]} (float[] etc.), which {@link MemorySegment#asByteBuffer} refuses with an exception (about a
     * microsecond each, on every send of such an array: checked first instead).
     */
    private static ByteBuffer view(MemorySegment payload) {
        if (payload.isNative() || payload.heapBase().orElse(null) instanceof byte[]) {
            return payload.asByteBuffer();
        }
        var copy = ByteBuffer.allocate(Math.toIntExact(payload.byteSize()));
        MemorySegment.ofBuffer(copy).copyFrom(payload);
        return copy;
    }
}
