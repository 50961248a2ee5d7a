package io.nexar.transport.quic.bulk;

import static io.nexar.internal.protocol.WireFormat.LENGTH_PREFIX_BYTES;

import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The frame being read from a bulk lane, for its {@link BulkReader}: the length prefix, checked before memory is
 * reserved for the frame; the frame buffer, which grows only as bytes arrive and is reused; the frame deadline; and a
 * large chunk's payload read straight into its claimed destination ({@link PayloadStream}) once its header is in.
 * {@link #advance} reads what the socket has now, up to the end of one frame.
 *
 * <p>Threading: used holding the reader's turn only (or on the reader thread between its turns, which then owns it).
 */
final class BulkFrameInput {
    /** {@link #advance}: the socket has nothing more now. */
    static final int NOTHING = 0;
    /** {@link #advance}: a whole frame is in the buffer: {@link #decode} it. */
    static final int FRAME = 1;
    /** {@link #advance}: a chunk's payload was read to its end into its destination (it was delivered there). */
    static final int STREAMED = 2;
    /** {@link #advance}: the peer ended its output cleanly, between frames. */
    static final int ENDED = 3;
    /** First size of the frame buffer; it grows (doubling, at most to the frame's checked size) as bytes arrive. */
    private static final int FIRST_FRAME_BUFFER = 64 << 10;

    private final BulkConnection owner;
    private final BulkHost host;
    private final BulkSocket socket;
    private final ByteBuffer prefix = ByteBuffer.allocateDirect(LENGTH_PREFIX_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private ByteBuffer frame = ByteBuffer.allocateDirect(FIRST_FRAME_BUFFER);
    /** A view of all of {@link #frame}'s memory, made when the buffer is: a decode slices it instead of a new view. */
    private MemorySegment frameMemory = MemorySegment.ofBuffer(frame.duplicate().clear());
    /** When the first byte of the frame being read arrived, and the last one. */
    private final FrameDeadline deadline = new FrameDeadline();
    /** Size of the frame being read (prefix included), or -1 while its length prefix is read. */
    private int frameSize = -1;
    /**
     * The frame being read is large enough to be streamed if it is a chunk: its header is read first, to this offset
     * ({@link PayloadStream#headerEnd}); 0 once it is in, or for other frames.
     */
    private int headerEnd;
    /** The payload of a claimed chunk being read into its destination (instead of into {@code frame}). */
    private final PayloadStream stream = new PayloadStream();
    /**
     * The message every collective frame is decoded into (its payload a view of {@link #frameMemory}): like the
     * frame's memory it is reused once the frame was delivered, which the turn orders.
     */
    private final Message.Collective received = new Message.Collective();

    BulkFrameInput(BulkConnection owner, BulkHost host, BulkSocket socket) {
        this.owner = owner;
        this.host = host;
        this.socket = socket;
    }

    /**
     * Reads the peer's Hello during setup (blocking socket), with its flags byte cleared for the codec.
     *
     * @return the Hello frame, or null if the stream ended cleanly before it
     */
    ByteBuffer readHelloFrame() throws IOException {
        prefix.clear();
        if (!socket.readFully(prefix, true)) {
            return null;
        }
        startFrame(true);
        ByteBuffer f = frame;
        f.limit(frameSize);
        socket.readFully(f, false);
        f.flip();
        frameSize = -1;
        prefix.clear();
        return f;
    }

    /**
     * Reads what the socket has now, up to the end of one frame.
     *
     * @return {@link #NOTHING}, {@link #FRAME}, {@link #STREAMED} or {@link #ENDED}
     * @throws IOException the connection failed or ended within a frame
     */
    int advance() throws IOException {
        while (true) {
            if (frameSize < 0) {
                boolean fresh = prefix.position() == 0;
                int n = socket.readAvailable(prefix);
                if (n == 0) {
                    checkFrameDeadline();
                    return NOTHING;
                }
                if (n > 0) {
                    deadline.arrived(System.nanoTime(), fresh);
                }
                if (n < 0) {
                    if (n == -1 && prefix.position() == 0) {
                        return ENDED;
                    }
                    throw FrameChecks.endOfStream(n);
                }
                if (!prefix.hasRemaining()) {
                    startFrame(false);
                }
                continue;
            }
            if (stream.active()) {
                if (!arrived(stream.read(socket))) {
                    return NOTHING;
                }
                if (!stream.active()) { // its last byte is in: the chunk was delivered into its destination
                    frameSize = -1;
                    prefix.clear();
                    return STREAMED;
                }
                continue;
            }
            ByteBuffer f = frame;
            if (f.position() < frameSize) {
                if (f.position() == f.capacity()) { // grow only as bytes arrive, never beyond the checked size
                    var bigger = ByteBuffer.allocateDirect((int) Math.min(frameSize, 2L * f.capacity()));
                    bigger.put(f.flip());
                    f = bigger;
                    frame = f;
                    frameMemory = MemorySegment.ofBuffer(f.duplicate().clear());
                }
                f.limit(headerEnd > 0 ? headerEnd : Math.min(frameSize, f.capacity()));
                if (!arrived(socket.readAvailable(f))) {
                    return NOTHING;
                }
                if (headerEnd > 0 && f.position() == headerEnd) {
                    headerEnd = streamPayload(f);
                }
                if (f.position() < frameSize) {
                    continue;
                }
            }
            return FRAME;
        }
    }

    /**
     * Decodes the whole frame in the buffer ({@link #advance} returned {@link #FRAME}) and starts the next one. The
     * message's payload is a view of the frame buffer, valid until the next {@link #advance}.
     */
    Message decode(int peer) {
        ByteBuffer f = frame;
        f.flip();
        frameSize = -1;
        prefix.clear();
        return MessageCodec.decode(peer, frameMemory, f.limit(), host.maxFrameBytes(), received);
    }

    /** The lane failed: a payload being streamed gets nothing more. */
    void abandon() {
        stream.abandon();
    }

    /**
     * Between frames, and the socket's last read found it drained ({@link BulkSocket#drainedAtLastRead}): a poll that
     * delivered a frame can stop without another read, which would almost surely find nothing.
     */
    boolean idleAfterFrame() {
        return betweenFrames() && socket.drainedAtLastRead();
    }

    /** No byte of a frame is in: the last frame ended and the next one's length prefix has not begun. */
    private boolean betweenFrames() {
        return frameSize < 0 && prefix.position() == 0;
    }

    /**
     * Nanoseconds left before the frame being read misses its deadline (see {@link BulkReader}'s class comment);
     * {@link Long#MAX_VALUE} between frames.
     */
    long frameNanosLeft(long now) {
        if (betweenFrames()) {
            return Long.MAX_VALUE;
        }
        long size = frameSize < 0 ? LENGTH_PREFIX_BYTES : frameSize;
        return deadline.nanosLeft(now, size, host.heartbeatTimeout());
    }

    /**
     * The socket has nothing now: fails the lane if a frame is under way and missed its deadline. Between frames (what
     * a waiting caller's polls find nearly every time) it reads no clock.
     */
    private void checkFrameDeadline() {
        if (betweenFrames()) {
            return;
        }
        long now = System.nanoTime();
        if (frameNanosLeft(now) > 0) {
            return;
        }
        long have = frameSize < 0 ? prefix.position() : frame.position();
        String size = frameSize < 0 ? "length prefix" : frameSize + "-byte frame";
        throw owner.protocolError(deadline.missed(now, have, size, host.heartbeatTimeout()));
    }

    /**
     * The length prefix is in: checks it ({@code hello}: it must be a HELLO's) and prepares the frame buffer, the
     * prefix copied in; sets {@code frameSize}.
     */
    private void startFrame(boolean hello) {
        int size = FrameChecks.checkedSize(owner, Integer.toUnsignedLong(prefix.getInt(0)), host.maxFrameBytes(),
                hello);
        ByteBuffer f = frame;
        f.clear();
        prefix.flip();
        f.put(prefix);
        frameSize = size;
        headerEnd = hello ? 0 : PayloadStream.headerEnd(f, size);
    }

    /**
     * After a read within a frame that returned {@code n}: true if bytes came (their arrival noted for the frame
     * deadline); false if none are there now (the deadline checked); throws at an end of the stream.
     */
    private boolean arrived(int n) throws IOException {
        if (n == 0) {
            checkFrameDeadline();
            return false;
        }
        if (n < 0) {
            throw FrameChecks.endOfStream(n);
        }
        deadline.arrived(System.nanoTime());
        return true;
    }

    /**
     * The first {@code headerEnd} bytes of a large frame are in {@code f}: if they are the header of a chunk whose
     * destination can be claimed now, its payload is read straight into it ({@link PayloadStream}); otherwise the
     * frame is read whole as any other.
     *
     * @return where the header ends if more of it must be read first, else 0
     */
    private int streamPayload(ByteBuffer f) {
        int end = PayloadStream.headerEnd(f, frameSize);
        if (end == f.position()) {
            var sink = PayloadStream.claim(host.handler(), owner.link().peer(),
                    MemorySegment.ofBuffer(f.duplicate().flip()), frameSize - end);
            if (sink != null) {
                stream.start(sink, frameSize - end);
            }
            return 0;
        }
        return end > f.position() ? end : 0;
    }
}
