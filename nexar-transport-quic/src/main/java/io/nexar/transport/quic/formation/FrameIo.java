package io.nexar.transport.quic.formation;

import io.nexar.internal.protocol.FrameDecoder;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import io.nexar.internal.protocol.WireFormat;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Blocking frame I/O on an enrolment stream (a TLS socket): one {@link Message} per frame, through the same
 * {@link FrameDecoder} and {@link MessageCodec} as every other connection. Reads take exactly one frame from the
 * stream, never more, so that the caller can change the frame limit between messages.
 *
 * <p>A frame's length prefix is checked against the limit before anything is allocated for it, and the frame's
 * bytes are then read in chunks of at most {@link #CHUNK_BYTES}; the decoder grows its buffer only as bytes arrive.
 */
final class FrameIo {

    /** Read chunk size. */
    static final int CHUNK_BYTES = 8192;

    private FrameIo() {
    }

    /** Encodes {@code m} and writes it as one frame, then flushes. */
    static void write(OutputStream out, Message m) throws IOException {
        byte[] frame = new byte[Math.toIntExact(MessageCodec.encodedSize(m))];
        MessageCodec.encode(m, MemorySegment.ofArray(frame));
        out.write(frame);
        out.flush();
    }

    /**
     * Reads exactly one frame.
     *
     * @param peer the rank named in protocol errors, -1 if unknown
     * @param maxFrameBytes the largest accepted length field
     * @return the message; enrolment messages own their bytes, so they outlive the read
     * @throws EOFException if the stream ends before or inside a frame
     * @throws io.nexar.ProtocolException if the frame violates the protocol (for example its length is too large)
     */
    static Message read(InputStream in, int peer, long maxFrameBytes) throws IOException {
        var decoder = new FrameDecoder(peer, maxFrameBytes);
        var result = new Message[1];
        byte[] prefix = in.readNBytes(WireFormat.LENGTH_PREFIX_BYTES);
        if (prefix.length < WireFormat.LENGTH_PREFIX_BYTES) {
            throw new EOFException(prefix.length == 0 ? "connection closed" : "connection closed inside a frame");
        }
        decoder.feed(ByteBuffer.wrap(prefix), m -> result[0] = m); // checks the length before any allocation
        long remaining = Integer.toUnsignedLong(ByteBuffer.wrap(prefix).order(WireFormat.BYTE_ORDER).getInt());
        byte[] chunk = new byte[(int) Math.min(CHUNK_BYTES, remaining)];
        while (remaining > 0) {
            int n = in.read(chunk, 0, (int) Math.min(chunk.length, remaining));
            if (n < 0) {
                throw new EOFException("connection closed inside a frame (" + remaining + " bytes missing)");
            }
            decoder.feed(ByteBuffer.wrap(chunk, 0, n), m -> result[0] = m);
            remaining -= n;
        }
        return result[0];
    }
}
