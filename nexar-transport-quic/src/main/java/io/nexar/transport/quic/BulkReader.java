package io.nexar.transport.quic;

import static io.nexar.internal.protocol.WireFormat.FLAGS_OFFSET;
import static io.nexar.internal.protocol.WireFormat.HELLO_FRAME_BYTES;
import static io.nexar.internal.protocol.WireFormat.LENGTH_PREFIX_BYTES;
import static io.nexar.internal.protocol.WireFormat.MIN_FRAME_LENGTH;

import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import io.nexar.internal.transport.InboundHandler;
import io.nexar.internal.transport.InboundHandler.Delivery;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

/**
 * The receiving side of a {@link BulkConnection}: reads, decrypts and decodes frames and delivers them. Reader thread
 * only.
 *
 * <p>Each frame's length prefix is checked against {@code max.frame.size} before memory is reserved for it (and,
 * before the Hello, must be a Hello's); the frame buffer grows only as bytes arrive, and is reused. Records are
 * decrypted straight into it. A message the handler refuses with {@link Delivery#FULL} is offered again with
 * {@link InboundHandler#deliverWaiting}: the reader waits, stops reading the socket, TCP's window closes and the
 * peer's writer waits. Other lanes are not affected.
 */
final class BulkReader {
    /** How long one {@link InboundHandler#deliverWaiting} call waits before the reader checks for a close. */
    private static final long DELIVER_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    /** First size of the frame buffer; it grows (doubling, at most to the frame's checked size) as bytes arrive. */
    private static final int FIRST_FRAME_BUFFER = 64 << 10;

    private final BulkConnection owner;
    private final QuicTransport transport;
    private final BulkSocket socket;
    private final BulkWriter writer;
    private boolean goodbyeSeen;
    /** The flags byte of the peer's HELLO: on the bulk lane it names the connection's lane. */
    private int helloFlags = -1;
    private final ByteBuffer prefix = ByteBuffer.allocateDirect(LENGTH_PREFIX_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private ByteBuffer frame = ByteBuffer.allocateDirect(FIRST_FRAME_BUFFER);

    BulkReader(BulkConnection owner, QuicTransport transport, BulkSocket socket, BulkWriter writer) {
        this.owner = owner;
        this.transport = transport;
        this.socket = socket;
        this.writer = writer;
    }

    /** After setup: reads and delivers frames until the peer's clean end; throws on an error. */
    void run() throws IOException, InterruptedException {
        PeerLink link = owner.link();
        for (Message m = readFrame(false); m != null; m = readFrame(false)) {
            link.noteReceived(); // liveness is judged by what arrives, on every lane
            dispatch(m);
        }
        finished();
    }

    /** Reads one frame ({@code first}: the peer's Hello during setup); null if the stream ended cleanly before it. */
    Message readFrame(boolean first) throws IOException {
        prefix.clear();
        if (!socket.readFully(prefix, true)) {
            return null;
        }
        long length = Integer.toUnsignedLong(prefix.getInt(0));
        PeerLink link = owner.link();
        int peer = link == null ? -1 : link.peer;
        long max = transport.maxFrameBytes();
        if (length > max) {
            throw owner.protocolError("sent a frame of " + length + " bytes, which exceeds the maximum of " + max
                    + " bytes");
        }
        if (length < MIN_FRAME_LENGTH) {
            throw owner.protocolError("sent a frame of " + length + " bytes, shorter than the " + MIN_FRAME_LENGTH
                    + "-byte type and flags header");
        }
        if (first && length != HELLO_FRAME_BYTES - LENGTH_PREFIX_BYTES) {
            throw owner.protocolError("began its bulk lane with a frame of " + length + " bytes instead of HELLO");
        }
        int size = (int) (LENGTH_PREFIX_BYTES + length);
        ByteBuffer f = frame;
        f.clear();
        prefix.flip();
        f.put(prefix);
        while (f.position() < size) {
            if (f.position() == f.capacity()) { // grow only as bytes arrive, never beyond the checked size
                var bigger = ByteBuffer.allocateDirect((int) Math.min(size, 2L * f.capacity()));
                bigger.put(f.flip());
                f = bigger;
                frame = f;
            }
            f.limit(Math.min(size, f.capacity()));
            socket.readFully(f, false);
        }
        f.flip();
        if (first) {
            helloFlags = f.get(FLAGS_OFFSET) & 0xFF;
            f.put(FLAGS_OFFSET, (byte) 0); // the codec checks a HELLO as on every other connection
        }
        return MessageCodec.decode(peer, MemorySegment.ofBuffer(f), max);
    }

    /** The flags byte of the peer's HELLO (after {@code readFrame(true)}), -1 before. */
    int helloFlags() {
        return helloFlags;
    }

    private void dispatch(Message m) throws InterruptedException {
        PeerLink link = owner.link();
        switch (m) {
            case Message.Hello _ -> throw owner.protocolError("sent a second HELLO on its bulk lane");
            case Message.Goodbye _ -> goodbyeSeen = true; // the last frame before a normal end (reason: on QUIC)
            default -> {
                InboundHandler handler = transport.handler();
                if (handler.onMessage(link.peer, m) == Delivery.FULL) {
                    // Back-pressure: wait here; unread bytes stay in the socket, so TCP stops the peer's writer.
                    while (!handler.deliverWaiting(link.peer, m, System.nanoTime() + DELIVER_SLICE_NANOS)) {
                        if (owner.isClosed()) {
                            return;
                        }
                    }
                }
            }
        }
        if (socket.wrapWanted()) {
            writer.wake(); // a key update to answer: the writer does it
        }
    }

    /** The peer ended its output cleanly: the lane was read to its end. */
    private void finished() {
        if (!owner.isReady()) {
            owner.fallBack("closed its bulk lane during setup");
            return;
        }
        PeerLink link = owner.link();
        owner.markInputEnded();
        if (!goodbyeSeen && !transport.isClosing() && !link.isDown()) {
            // The stream ended without the Goodbye a leaving peer writes first: its process exited or was killed
            // (the kernel closed its socket). That counts at once; QUIC would notice only by the heartbeat timeout.
            owner.lose("closed its bulk lane without saying goodbye (its process exited or was killed)", null);
            return;
        }
        owner.onQuicConnection(Connection::checkDrained);
    }
}
