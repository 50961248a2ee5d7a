package io.nexar.internal.protocol;

import static io.nexar.internal.protocol.MessageCodec.error;
import static io.nexar.internal.protocol.MessageCodec.requireSize;
import static io.nexar.internal.protocol.MessageCodec.source;
import static io.nexar.internal.protocol.WireFormat.*;

import io.nexar.internal.util.Segments;
import java.lang.foreign.MemorySegment;

/**
 * The bodies of the data-path frames: HELLO (with its magic and version check), DATA and HEARTBEAT (layouts in
 * {@link MessageCodec}). {@link MessageCodec} writes and checks the frame header and dispatches here by type; each
 * message has its body encoder, its decoder and its field rules (the sizes are constants of {@link WireFormat}).
 * Stateless.
 */
final class DataPathCodec {
    private DataPathCodec() {
    }

    static void encode(Message.Hello h, MemorySegment dst) {
        dst.set(INT_LE, HELLO_MAGIC_OFFSET, MAGIC);
        dst.set(SHORT_LE, HELLO_VERSION_OFFSET, (short) h.version());
        dst.set(INT_LE, HELLO_RANK_OFFSET, h.rank());
        dst.set(INT_LE, HELLO_WORLD_SIZE_OFFSET, h.worldSize());
        dst.set(LONG_LE, HELLO_INCARNATION_OFFSET, h.incarnation());
    }

    /** Writes {@code d}'s body into {@code dst}, its payload too if {@code withPayload}. */
    static void encode(Message.Data d, MemorySegment dst, boolean withPayload) {
        dst.set(INT_LE, DATA_COMMUNICATOR_OFFSET, d.communicator());
        dst.set(INT_LE, DATA_TAG_OFFSET, d.tag());
        dst.set(LONG_LE, DATA_MESSAGE_SEQ_OFFSET, d.messageSeq());
        dst.set(LONG_LE, DATA_TOTAL_BYTES_OFFSET, d.totalBytes());
        dst.set(LONG_LE, DATA_OFFSET_OFFSET, d.offset());
        if (withPayload) {
            Segments.copy(d.payload(), 0, dst, DATA_PAYLOAD_OFFSET, d.payload().byteSize());
        }
    }

    static void encode(Message.Heartbeat hb, MemorySegment dst) {
        dst.set(LONG_LE, HEARTBEAT_SEQUENCE_OFFSET, hb.sequence());
        dst.set(LONG_LE, HEARTBEAT_SENT_NANOS_OFFSET, hb.sentNanos());
    }

    /** Decodes the body of a HELLO frame whose length, type and flags {@link MessageCodec} has checked. */
    static Message.Hello decodeHello(int peer, MemorySegment frame) {
        // Magic and version first: a later version may have a longer Hello, and must be reported as such.
        requireSize(peer, MessageType.HELLO, frame, HELLO_RANK_OFFSET, false);
        int magic = frame.get(INT_LE, HELLO_MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw error(peer, "bad magic " + String.format("0x%08x", magic) + " in HELLO from " + source(peer)
                    + ", expected " + String.format("0x%08x", MAGIC) + " (\"NXAR\"): not a nexar peer");
        }
        int version = frame.get(SHORT_LE, HELLO_VERSION_OFFSET) & 0xFFFF;
        if (version != VERSION) {
            throw error(peer, "unsupported protocol version " + version + " from " + source(peer)
                    + " (this node speaks " + VERSION + ")");
        }
        requireSize(peer, MessageType.HELLO, frame, HELLO_FRAME_BYTES, true);
        return new Message.Hello(version, frame.get(INT_LE, HELLO_RANK_OFFSET),
                frame.get(INT_LE, HELLO_WORLD_SIZE_OFFSET), frame.get(LONG_LE, HELLO_INCARNATION_OFFSET));
    }

    /**
     * Decodes the body of a DATA frame whose length, type and flags {@link MessageCodec} has checked; the payload is
     * a slice of {@code frame}.
     */
    static Message.Data decodeData(int peer, MemorySegment frame) {
        requireSize(peer, MessageType.DATA, frame, DATA_PAYLOAD_OFFSET, false);
        return new Message.Data(frame.get(INT_LE, DATA_COMMUNICATOR_OFFSET), frame.get(INT_LE, DATA_TAG_OFFSET),
                frame.get(LONG_LE, DATA_MESSAGE_SEQ_OFFSET), frame.get(LONG_LE, DATA_TOTAL_BYTES_OFFSET),
                frame.get(LONG_LE, DATA_OFFSET_OFFSET), frame.asSlice(DATA_PAYLOAD_OFFSET));
    }

    /** Decodes the body of a HEARTBEAT frame whose length, type and flags {@link MessageCodec} has checked. */
    static Message.Heartbeat decodeHeartbeat(int peer, MemorySegment frame) {
        requireSize(peer, MessageType.HEARTBEAT, frame, HEARTBEAT_FRAME_BYTES, true);
        return new Message.Heartbeat(frame.get(LONG_LE, HEARTBEAT_SEQUENCE_OFFSET),
                frame.get(LONG_LE, HEARTBEAT_SENT_NANOS_OFFSET));
    }

    /** What is wrong with {@code h}'s fields, or null if it may go on the wire. */
    static String problem(Message.Hello h) {
        if (h.version() < 0 || h.version() > 0xFFFF) {
            return "version " + h.version() + " does not fit in a u16";
        } else if (h.worldSize() < 1) {
            return "worldSize " + h.worldSize() + " is less than 1";
        } else if (h.rank() < 0 || h.rank() >= h.worldSize()) {
            return "rank " + h.rank() + " is not in [0, " + h.worldSize() + ")";
        }
        return null;
    }

    /** What is wrong with {@code d}'s fields, or null if it may go on the wire. */
    static String problem(Message.Data d) {
        if (d.communicator() < 0) {
            return "communicator " + d.communicator() + " is negative";
        } else if (d.tag() < 0) {
            return "tag " + d.tag() + " is negative";
        } else if (d.totalBytes() < 0) {
            return "totalBytes " + d.totalBytes() + " is negative";
        } else if (d.offset() < 0) {
            return "offset " + d.offset() + " is negative";
        } else if (d.payload() == null) {
            return "payload is null";
        } else if (d.payload().byteSize() > MAX_DATA_PAYLOAD_BYTES) {
            return "payload of " + d.payload().byteSize() + " bytes exceeds the maximum of "
                    + MAX_DATA_PAYLOAD_BYTES + " per frame; send it in chunks";
        } else if (d.offset() > d.totalBytes() - d.payload().byteSize()) { // no overflow: both are >= 0
            return "chunk of " + d.payload().byteSize() + " bytes at offset " + d.offset()
                    + " runs past totalBytes " + d.totalBytes();
        }
        return null;
    }
}
