package io.nexar.transport.quic.bulk;

import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import io.nexar.internal.protocol.WireFormat;
import io.nexar.internal.util.Segments;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** How the bulk lane ({@link BulkConnection}) lays out a message to send: the buffers of one frame. */
final class BulkFrames {

    private BulkFrames() {
    }

    /** Largest payload copied into the calling thread's frame buffer behind its header: one buffer, no view. */
    static final int INLINE_PAYLOAD_BYTES = 256;

    /**
     * Each sending thread's buffer for the header of a frame with a payload (and the whole frame, when the payload is
     * at most {@link #INLINE_PAYLOAD_BYTES}), with its memory-segment view and the array {@link #frameOf} returns
     * for such a frame. A sender waits until its frame is taken whole into the connection's output buffers (or copied
     * for the writer, {@link BulkWriter}), so a thread's frame is never needed again once it sends its next one: one
     * per thread suffices, and a small message's frame allocates nothing.
     */
    private static final class ThreadFrame {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(Math.max(WireFormat.DATA_HEADER_BYTES,
                WireFormat.COLLECTIVE_HEADER_BYTES) + INLINE_PAYLOAD_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        final MemorySegment segment = MemorySegment.ofBuffer(buffer);
        final ByteBuffer[] one = {buffer};
    }

    private static final ThreadLocal<ThreadFrame> FRAME = ThreadLocal.withInitial(ThreadFrame::new);

    /**
     * A message as the buffers of one frame: its header, and its payload as a view of the caller's memory (no copy),
     * or, for a payload of at most {@link #INLINE_PAYLOAD_BYTES}, one buffer with both. The length prefix counts the
     * whole frame. The header buffer of a Data or Collective frame (and a small one's array) is the calling
     * thread's (see {@link ThreadFrame}): valid until this thread's next call.
     */
    static ByteBuffer[] frameOf(Message m) {
        MemorySegment payload = switch (m) {
            case Message.Data d -> d.payload();
            case Message.Collective c -> c.payload();
            default -> null;
        };
        if (payload == null) { // not a Data or Collective frame: rare, and a Goodbye outlives the call
            return new ByteBuffer[] {encode(m)};
        }
        ThreadFrame f = FRAME.get();
        ByteBuffer header = f.buffer.clear();
        int n = (int) MessageCodec.encodeHeader(m, f.segment); // checks every field
        long len = payload.byteSize();
        if (len <= INLINE_PAYLOAD_BYTES) {
            Segments.copy(payload, 0, f.segment, n, len);
            header.limit(n + (int) len);
            return f.one;
        }
        header.limit(n);
        return new ByteBuffer[] {header, view(payload)}; // a large frame: not kept (it refers to the caller's memory)
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
        if (Segments.byteBufferViewable(payload)) {
            return payload.asByteBuffer();
        }
        var copy = ByteBuffer.allocate(Math.toIntExact(payload.byteSize()));
        Segments.copy(payload, 0, MemorySegment.ofBuffer(copy), 0, payload.byteSize());
        return copy;
    }
}
