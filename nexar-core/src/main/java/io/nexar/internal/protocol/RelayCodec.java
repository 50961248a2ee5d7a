package io.nexar.internal.protocol;

import static io.nexar.internal.protocol.MessageCodec.error;
import static io.nexar.internal.protocol.MessageCodec.hex;
import static io.nexar.internal.protocol.MessageCodec.requireSize;
import static io.nexar.internal.protocol.MessageCodec.source;
import static io.nexar.internal.protocol.WireFormat.*;
import static io.nexar.internal.protocol.WireText.utf8;
import static io.nexar.internal.protocol.WireText.utf8Length;

import io.nexar.internal.util.Segments;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * The bodies of the sparse-topology frames: RELAY (an envelope around another frame, forwarded between neighbours)
 * and PEER_DOWN (layouts in {@link MessageCodec}). {@link MessageCodec} writes and checks the frame header and
 * dispatches here by type; each message has its size, its body encoder, its decoder and its field rules. Stateless.
 */
final class RelayCodec {
    private RelayCodec() {
    }

    static long size(Message.Relay r) {
        return RELAY_FRAME_OFFSET + r.frame().byteSize();
    }

    static long size(Message.PeerDown d) {
        return PEER_DOWN_DETAIL_OFFSET + utf8Length(d.detail());
    }

    static void encode(Message.Relay r, MemorySegment dst) {
        dst.set(INT_LE, RELAY_ORIGIN_OFFSET, r.origin());
        dst.set(INT_LE, RELAY_DESTINATION_OFFSET, r.destination());
        dst.set(BYTE, RELAY_HOPS_OFFSET, (byte) r.hops());
        dst.set(BYTE, RELAY_HOP_LIMIT_OFFSET, (byte) r.hopLimit());
        dst.set(SHORT_LE, RELAY_RESERVED_OFFSET, (short) 0);
        Segments.copy(r.frame(), 0, dst, RELAY_FRAME_OFFSET, r.frame().byteSize());
    }

    static void encode(Message.PeerDown d, MemorySegment dst) {
        byte[] text = d.detail().getBytes(StandardCharsets.UTF_8); // well-formed: checked by encodedSize
        dst.set(INT_LE, PEER_DOWN_RANK_OFFSET, d.rank());
        dst.set(SHORT_LE, PEER_DOWN_DETAIL_LENGTH_OFFSET, (short) text.length);
        MemorySegment.copy(text, 0, dst, BYTE, PEER_DOWN_DETAIL_OFFSET, text.length);
    }

    /** Decodes the body of a RELAY frame whose length, type and flags {@link MessageCodec} has checked. */
    static Message.Relay decodeRelay(int peer, MemorySegment frame) {
        requireSize(peer, MessageType.RELAY, frame, RELAY_FRAME_OFFSET, false);
        int reserved = frame.get(SHORT_LE, RELAY_RESERVED_OFFSET) & 0xFFFF;
        if (reserved != 0) {
            throw error(peer, "invalid RELAY from " + source(peer) + ": reserved field is " + hex(reserved)
                    + ", expected 0");
        }
        return new Message.Relay(frame.get(INT_LE, RELAY_ORIGIN_OFFSET),
                frame.get(INT_LE, RELAY_DESTINATION_OFFSET), frame.get(BYTE, RELAY_HOPS_OFFSET) & 0xFF,
                frame.get(BYTE, RELAY_HOP_LIMIT_OFFSET) & 0xFF, frame.asSlice(RELAY_FRAME_OFFSET));
    }

    /** Decodes the body of a PEER_DOWN frame whose length, type and flags {@link MessageCodec} has checked. */
    static Message.PeerDown decodePeerDown(int peer, MemorySegment frame) {
        requireSize(peer, MessageType.PEER_DOWN, frame, PEER_DOWN_DETAIL_OFFSET, false);
        int textBytes = frame.get(SHORT_LE, PEER_DOWN_DETAIL_LENGTH_OFFSET) & 0xFFFF;
        if (textBytes > MAX_TEXT_BYTES) {
            throw error(peer, "PEER_DOWN detail of " + textBytes + " bytes from " + source(peer)
                    + " exceeds the maximum of " + MAX_TEXT_BYTES + " bytes");
        }
        requireSize(peer, MessageType.PEER_DOWN, frame, PEER_DOWN_DETAIL_OFFSET + textBytes, true);
        return new Message.PeerDown(frame.get(INT_LE, PEER_DOWN_RANK_OFFSET),
                utf8(peer, "PEER_DOWN detail", frame, PEER_DOWN_DETAIL_OFFSET, textBytes));
    }

    /** What is wrong with a relay envelope, or null; the inner frame's type is checked here, its body on arrival. */
    static String problem(Message.Relay r) {
        if (r.origin() < 0 || r.destination() < 0) {
            return "origin " + r.origin() + " or destination " + r.destination() + " is negative";
        } else if (r.origin() == r.destination()) {
            return "origin and destination are both rank " + r.origin();
        } else if (r.hopLimit() < 1 || r.hopLimit() > 0xFF || r.hops() < 1 || r.hops() > r.hopLimit()) {
            return "hops " + r.hops() + " is not in [1, hop limit " + r.hopLimit() + "] (hop limit at most 255)";
        } else if (r.frame() == null) {
            return "frame is null";
        }
        long size = r.frame().byteSize();
        if (size < FRAME_HEADER_BYTES) {
            return "inner frame of " + size + " bytes is shorter than a frame header (" + FRAME_HEADER_BYTES + ")";
        }
        long length = Integer.toUnsignedLong(r.frame().get(INT_LE, 0));
        if (length != size - LENGTH_PREFIX_BYTES) {
            return "inner frame's length prefix says " + length + " bytes, " + (size - LENGTH_PREFIX_BYTES)
                    + " follow it";
        }
        MessageType inner = MessageType.fromCode(r.frame().get(BYTE, TYPE_OFFSET) & 0xFF);
        if (inner == null || inner == MessageType.HELLO || inner == MessageType.RELAY
                || inner.code() >= MessageType.JOIN_CHALLENGE.code() && inner.code() <= MessageType.RENEWED.code()
                        && inner != MessageType.PEER_TABLE) { // a member's link offer (docs/protocol.md 4.11)
            return "inner frame of type " + (inner == null ? hex(r.frame().get(BYTE, TYPE_OFFSET) & 0xFF) : inner)
                    + " cannot be relayed";
        }
        return null;
    }

    /** What is wrong with a PEER_DOWN's fields, or null. */
    static String problem(Message.PeerDown d) {
        if (d.rank() < 0) {
            return "rank " + d.rank() + " is negative";
        } else if (d.detail() == null) {
            return "detail is null";
        }
        long bytes = utf8Length(d.detail());
        return bytes < 0 ? "detail contains an unpaired surrogate" : bytes > MAX_TEXT_BYTES
                ? "detail of " + bytes + " UTF-8 bytes exceeds the maximum of " + MAX_TEXT_BYTES : null;
    }
}
