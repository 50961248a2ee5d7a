package io.nexar.internal.protocol;

import static io.nexar.internal.protocol.WireFormat.INT_LE;
import static io.nexar.internal.protocol.WireFormat.LENGTH_PREFIX_BYTES;

import io.nexar.ProtocolException;
import io.nexar.internal.util.Segments;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Splits the byte stream of one connection (TCP, a QUIC stream) into frames and decodes them with
 * {@link MessageCodec}. Bytes may arrive in any split; the decoder keeps an incomplete frame between calls.
 *
 * <pre>
 *   feed(in)           +----------+----------------------------+
 *   ---- bytes ---->   | u32 len  | type | flags | body ...    |  ---- Message ----> out
 *                      +----------+----------------------------+
 *                       1. read 4 bytes, check len against maxFrameBytes (nothing allocated yet)
 *                       2. decode in place if the whole frame is in {@code in}; otherwise copy into the
 *                          accumulation buffer, growing it only as bytes arrive (never to a claimed size)
 * </pre>
 *
 * <p><b>Limits.</b> Every length prefix is checked against {@code maxFrameBytes} (the largest accepted value of the
 * length field) before any memory is reserved for the frame, and lengths below the two-byte type and flags header
 * are refused too. The accumulation buffer grows to at most {@code 4 + maxFrameBytes} bytes, is reused for the
 * following frames and never shrinks.
 *
 * <p><b>Failure.</b> The first protocol violation raises a {@link ProtocolException}; the decoder then stays failed
 * and every later {@link #feed} throws that same exception, since the stream cannot be resynchronised. The caller
 * closes the connection.
 *
 * <p><b>Ownership.</b> A message handed to {@code out} may reference memory owned by the decoder or by the caller's
 * input buffer: a {@link Message.Data#payload()} is valid <em>only during the callback</em>. Copy (or consume) it
 * before returning; do not keep it.
 *
 * <p><b>Threading.</b> Not thread-safe: one decoder per connection, used by one thread at a time (the connection's
 * event loop). It is not reentrant either: {@code out} must not call {@link #feed} on the same decoder.
 */
public final class FrameDecoder {

    /** The largest {@code maxFrameBytes} a decoder accepts: a frame must fit in one Java array. */
    public static final long MAX_SUPPORTED_FRAME_BYTES = Integer.MAX_VALUE - 16 - LENGTH_PREFIX_BYTES;

    /** Initial accumulation buffer size: a Hello, a Heartbeat or a small Data frame fits without growing. */
    static final int INITIAL_CAPACITY = 64;

    private final int peer;
    private final long maxFrameBytes;

    private byte[] buffer = new byte[INITIAL_CAPACITY];
    private MemorySegment bufferSegment = MemorySegment.ofArray(buffer);
    /** Bytes of the current incomplete frame held in {@link #buffer}, prefix included. */
    private int filled;
    /** Size of the current frame, prefix included, once its prefix is known and checked; -1 before. */
    private int frameSize = -1;
    private ProtocolException failure;
    private boolean delivering;

    /**
     * @param peer the rank at the other end, named in error messages ({@code -1} if not yet known)
     * @param maxFrameBytes the largest accepted value of a frame's length field (frame size without its prefix)
     * @throws IllegalArgumentException if {@code maxFrameBytes} is below {@link WireFormat#MIN_FRAME_LENGTH} or
     *         above {@link #MAX_SUPPORTED_FRAME_BYTES}
     */
    public FrameDecoder(int peer, long maxFrameBytes) {
        MessageCodec.checkMaxFrameBytes(maxFrameBytes);
        if (maxFrameBytes > MAX_SUPPORTED_FRAME_BYTES) {
            throw new IllegalArgumentException("maxFrameBytes " + maxFrameBytes + " exceeds the supported maximum of "
                    + MAX_SUPPORTED_FRAME_BYTES + "; larger payloads travel as several Data chunks");
        }
        this.peer = peer;
        this.maxFrameBytes = maxFrameBytes;
    }

    /**
     * Consumes every remaining byte of {@code in} and hands each frame it completes, in order, to {@code out}.
     * Bytes of an incomplete frame are kept for the next call.
     *
     * <p>On return {@code in}'s position equals its limit. If {@code out} throws, the exception propagates with
     * {@code in}'s position just after the frame that was being delivered, and the decoder stays usable: feed the
     * rest of {@code in} again to continue. {@code in}'s byte order and contents are not changed.
     *
     * @param in the bytes received; heap or direct
     * @param out receives each decoded message; a Data payload is valid only during the call
     * @throws ProtocolException on a protocol violation, and on every call after one
     * @throws IllegalStateException if called from within {@code out}
     */
    public void feed(ByteBuffer in, Consumer<? super Message> out) {
        Objects.requireNonNull(in, "in");
        Objects.requireNonNull(out, "out");
        if (failure != null) {
            throw failure;
        }
        if (delivering) {
            throw new IllegalStateException("feed called from within its own consumer");
        }
        MemorySegment src = MemorySegment.ofBuffer(in);
        int start = in.position();
        long pos = 0;
        long end = src.byteSize();
        while (pos < end) {
            if (filled == 0 && end - pos >= LENGTH_PREFIX_BYTES) {
                // Fast path: a frame that lies whole in the input is decoded in place, without a copy.
                long frameBytes = LENGTH_PREFIX_BYTES + checkedLength(src.get(INT_LE, pos));
                if (end - pos >= frameBytes) {
                    Message m = decode(src.asSlice(pos, frameBytes));
                    pos += frameBytes;
                    deliver(m, in, start + (int) pos, out);
                    continue;
                }
            }
            if (frameSize < 0) {
                int n = (int) Math.min(LENGTH_PREFIX_BYTES - filled, end - pos);
                Segments.copy(src, pos, bufferSegment, filled, n); // capacity is always >= the prefix
                filled += n;
                pos += n;
                if (filled < LENGTH_PREFIX_BYTES) {
                    break;
                }
                frameSize = (int) (LENGTH_PREFIX_BYTES + checkedLength(bufferSegment.get(INT_LE, 0)));
            }
            int n = (int) Math.min(frameSize - filled, end - pos);
            ensureCapacity(filled + n);
            Segments.copy(src, pos, bufferSegment, filled, n);
            filled += n;
            pos += n;
            if (filled == frameSize) {
                Message m = decode(bufferSegment.asSlice(0, frameSize));
                filled = 0;
                frameSize = -1;
                deliver(m, in, start + (int) pos, out); // the buffer is not written again before the next feed
            }
        }
        in.position(start + (int) pos);
    }

    /** The rank at the other end, as given to the constructor. */
    public int peer() {
        return peer;
    }

    /** The largest accepted value of a frame's length field. */
    public long maxFrameBytes() {
        return maxFrameBytes;
    }

    /** Bytes of an incomplete frame held until more input arrives (0 between frames). */
    public int bufferedBytes() {
        return filled;
    }

    /**
     * Size of the incomplete frame being assembled, length prefix included, once its prefix is in and checked; -1
     * while its prefix is read and between frames.
     *
     * @return the frame's size in bytes, or -1
     */
    public int frameBytes() {
        return frameSize;
    }

    /** Current size of the accumulation buffer in bytes; it grows with the frames actually received. */
    public int bufferCapacity() {
        return buffer.length;
    }

    /** Whether a protocol violation has been seen; a failed decoder rejects all further input. */
    public boolean isFailed() {
        return failure != null;
    }

    private void deliver(Message m, ByteBuffer in, int position, Consumer<? super Message> out) {
        in.position(position);
        delivering = true;
        try {
            out.accept(m);
        } finally {
            delivering = false;
        }
    }

    private long checkedLength(int lengthField) {
        try {
            return MessageCodec.checkLength(peer, lengthField, maxFrameBytes);
        } catch (ProtocolException e) {
            failure = e;
            throw e;
        }
    }

    private Message decode(MemorySegment frame) {
        try {
            return MessageCodec.decode(peer, frame, maxFrameBytes);
        } catch (ProtocolException e) {
            failure = e;
            throw e;
        }
    }

    /** Grows to hold {@code needed} bytes: doubling, but never beyond the current (checked) frame. */
    private void ensureCapacity(int needed) {
        if (needed > buffer.length) {
            int capacity = (int) Math.min(Math.max(needed, 2L * buffer.length), frameSize);
            buffer = Arrays.copyOf(buffer, capacity);
            bufferSegment = MemorySegment.ofArray(buffer);
        }
    }
}
