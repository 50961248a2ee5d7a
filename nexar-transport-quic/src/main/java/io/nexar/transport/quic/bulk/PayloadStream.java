package io.nexar.transport.quic.bulk;

import static io.nexar.internal.protocol.WireFormat.COLLECTIVE_PAYLOAD_OFFSET;
import static io.nexar.internal.protocol.WireFormat.DATA_PAYLOAD_OFFSET;
import static io.nexar.internal.protocol.WireFormat.TYPE_OFFSET;

import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import io.nexar.internal.protocol.MessageType;
import io.nexar.internal.transport.InboundHandler;
import io.nexar.internal.transport.PayloadSink;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * The payload of one large chunk being read from a bulk lane into its claimed destination ({@link PayloadSink}), for
 * a {@link BulkReader}: records are decrypted straight into the receiver's memory, or into a small buffer that is
 * reduced into it record by record while it is still in the cache, so a 4 MiB chunk never passes through a 4 MiB
 * frame buffer and is never copied after it arrived (issue 13). The chunks are those of collectives (claimed from the
 * collective engine) and of point-to-point messages that a posted receive takes (claimed from the mailbox).
 *
 * <p>Which frames: one whose payload would be at least {@link BulkReader#STREAM_MIN_BYTES} if it is a chunk has its
 * header read first ({@link #headerEnd}: the shorter DATA header, then the rest of a COLLECTIVE one), and the
 * destination is claimed from it ({@link #claim}); a frame of any other type, or whose destination cannot be claimed,
 * is read whole as before. The bytes on the wire are the same either way.
 *
 * <p>Used holding the reader's turn only. One piece is one {@link BulkSocket#readAvailable} (about one TLS record);
 * the sink may be cancelled between pieces (its operation ended), and the rest of the payload is then read and
 * dropped, so the lane stays in step with the frames.
 */
final class PayloadStream {
    /** The reduce buffer: a few TLS records, small enough to stay in the core's caches. */
    private static final int PIECE_BYTES = 64 << 10;

    private final ByteBuffer scratch = ByteBuffer.allocateDirect(PIECE_BYTES);
    private final MemorySegment scratchSegment = MemorySegment.ofBuffer(scratch);
    private PayloadSink sink;
    /** A view of the sink's direct destination, or null (pieces go through {@link #scratch}). */
    private ByteBuffer direct;
    /** Payload bytes not read from the socket yet. */
    private long left;
    /** Payload bytes handed to the sink so far (scratch path). */
    private long accepted;
    private boolean dropping;

    /**
     * Where the header of the frame being read into {@code f} ends, if its payload may be streamed: with fewer bytes
     * in than a DATA header, the shortest chunk header (the type is not known yet); then the header of its type
     * (DATA or COLLECTIVE). 0 if the frame is not a chunk, or its payload is below {@link BulkReader#STREAM_MIN_BYTES}.
     *
     * @param f the frame buffer, from the length prefix on, with {@code f.position()} bytes in
     * @param frameSize the frame's size, length prefix included
     */
    static int headerEnd(ByteBuffer f, int frameSize) {
        int end = DATA_PAYLOAD_OFFSET;
        if (f.position() > TYPE_OFFSET) {
            int type = f.get(TYPE_OFFSET) & 0xFF;
            end = type == MessageType.DATA.code() ? DATA_PAYLOAD_OFFSET
                    : type == MessageType.COLLECTIVE.code() ? COLLECTIVE_PAYLOAD_OFFSET : 0;
        }
        return end > 0 && frameSize - end >= BulkReader.STREAM_MIN_BYTES ? end : 0;
    }

    /**
     * Claims the destination of the chunk whose header is {@code header} (the frame's bytes up to its payload) from
     * {@code handler}; null if it is not a chunk's or cannot be claimed now.
     */
    static PayloadSink claim(InboundHandler handler, int peer, MemorySegment header, long payloadBytes) {
        Message.Collective c = MessageCodec.collectiveHeader(header);
        if (c != null) {
            return handler.claim(peer, c, payloadBytes);
        }
        Message.Data d = MessageCodec.dataHeader(header, payloadBytes);
        return d == null ? null : handler.claim(peer, d, payloadBytes);
    }

    /** True while a payload is being read. */
    boolean active() {
        return sink != null;
    }

    /** Starts reading a payload of {@code bytes} into {@code to}. */
    void start(PayloadSink to, long bytes) {
        sink = to;
        MemorySegment d = to.direct();
        direct = d == null ? null : d.asByteBuffer();
        left = bytes;
        accepted = 0;
        dropping = false;
        scratch.clear();
    }

    /**
     * Reads what the socket has of the payload now and writes it to the sink; completes the sink after the last
     * byte (then {@link #active()} is false).
     *
     * @return bytes read (at least 1), 0 if the socket has nothing now, or a negative end code as
     *         {@link BulkSocket#readAvailable} returns it
     */
    int read(BulkSocket socket) throws IOException {
        int total = 0;
        while (left > 0) {
            boolean writing = !dropping && sink.begin();
            dropping = !writing;
            int n;
            try {
                n = writing && direct != null ? readDirect(socket) : readPiece(socket, writing);
            } finally {
                if (writing) {
                    sink.pause();
                }
            }
            if (n <= 0) {
                return total > 0 ? total : n;
            }
            left -= n;
            total += n;
        }
        PayloadSink done = sink;
        sink = null;
        direct = null;
        done.complete();
        return total;
    }

    /*
     * Both reads count what landed in their buffer, not what readAvailable returns: that includes bytes a read or a
     * record brought beyond the buffer's limit (the next frame's), which the socket keeps for the next read.
     */

    /** One read straight into the destination: payload bytes read, or readAvailable's 0 or end code. */
    private int readDirect(BulkSocket socket) throws IOException {
        int before = direct.position();
        int n = socket.readAvailable(direct);
        return n <= 0 ? n : direct.position() - before;
    }

    /** One read into the scratch buffer; whole elements are handed to the sink ({@code writing}) or dropped. */
    private int readPiece(BulkSocket socket, boolean writing) throws IOException {
        int before = scratch.position();
        scratch.limit((int) Math.min(scratch.capacity(), before + left));
        int n = socket.readAvailable(scratch);
        if (n <= 0) {
            return n;
        }
        int have = scratch.position();
        n = have - before;
        int use = writing ? have - have % sink.grain() : have;
        if (writing && use > 0) {
            sink.accept(scratchSegment.asSlice(0, use), accepted);
            accepted += use;
        }
        // keep a split element's first bytes at the start (at most grain - 1 of them)
        scratch.limit(have).position(use);
        scratch.compact();
        return n;
    }

    /** The lane failed within the payload: nothing more comes for it. */
    void abandon() {
        PayloadSink s = sink;
        sink = null;
        direct = null;
        if (s != null) {
            s.abandon();
        }
    }
}
