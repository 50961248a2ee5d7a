package io.nexar.internal.protocol;

import static io.nexar.internal.protocol.EnrolmentCodec.FAMILY_IPV4;
import static io.nexar.internal.protocol.EnrolmentCodec.FAMILY_IPV6;
import static io.nexar.internal.protocol.EnrolmentCodec.FAMILY_NONE;
import static io.nexar.internal.protocol.EnrolmentCodec.MAX_MEMBER_ID_BYTES;
import static io.nexar.internal.protocol.WireFormat.BYTE;
import static io.nexar.internal.protocol.WireFormat.FRAME_HEADER_BYTES;
import static io.nexar.internal.protocol.WireFormat.INT_LE;
import static io.nexar.internal.protocol.WireFormat.SHORT_LE;

import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Sequential field access to an enrolment body for {@link EnrolmentCodec}: a {@link Writer} for frames whose fields
 * were validated, and a {@link Reader} that checks every field against the bytes left in the frame (and every length
 * against its bound) before reading or allocating, raising a {@link io.nexar.ProtocolException} that names the frame
 * type, the peer and the field.
 */
final class EnrolmentCursor {

    private EnrolmentCursor() {
    }

    static final class Writer {
        private final MemorySegment dst;
        private long pos;

        Writer(MemorySegment dst, long pos) {
            this.dst = dst;
            this.pos = pos;
        }

        void u8(int v) {
            dst.set(BYTE, pos++, (byte) v);
        }

        void u16(int v) {
            dst.set(SHORT_LE, pos, (short) v);
            pos += 2;
        }

        void i32(int v) {
            dst.set(INT_LE, pos, v);
            pos += 4;
        }

        void bytes(byte[] b) {
            MemorySegment.copy(b, 0, dst, BYTE, pos, b.length);
            pos += b.length;
        }

        void address(InetSocketAddress a) {
            if (a == null) {
                u8(FAMILY_NONE);
                return;
            }
            byte[] ip = a.getAddress().getAddress();
            u8(a.getAddress() instanceof Inet6Address ? FAMILY_IPV6 : FAMILY_IPV4);
            bytes(ip);
            u16(a.getPort());
        }
    }

    static final class Reader {
        private final int peer;
        private final MessageType type;
        private final MemorySegment frame;
        private long pos = FRAME_HEADER_BYTES;

        Reader(int peer, MessageType type, MemorySegment frame) {
            this.peer = peer;
            this.type = type;
            this.frame = frame;
        }

        long remaining() {
            return frame.byteSize() - pos;
        }

        private void need(long n) {
            if (remaining() < n) {
                throw MessageCodec.error(peer, "truncated " + type + " frame from " + MessageCodec.source(peer)
                        + ": the " + n + "-byte field at offset " + pos + " runs past its end at " + frame.byteSize());
            }
        }

        int u8() {
            need(1);
            return frame.get(BYTE, pos++) & 0xFF;
        }

        int u16() {
            need(2);
            int v = frame.get(SHORT_LE, pos) & 0xFFFF;
            pos += 2;
            return v;
        }

        int i32() {
            need(4);
            int v = frame.get(INT_LE, pos);
            pos += 4;
            return v;
        }

        /** Checks a length field against its bounds (before anything is allocated for it). */
        int length(int value, int min, int max, String what) {
            if (value < min || value > max) {
                throw MessageCodec.error(peer, type + " " + what + " length " + value + " from "
                        + MessageCodec.source(peer) + " is not in [" + min + ", " + max + "]");
            }
            return value;
        }

        byte[] bytes(int n, String what) {
            need(n); // checked against the frame before the array exists
            byte[] b = frame.asSlice(pos, n).toArray(BYTE);
            pos += n;
            return b;
        }

        String memberId() {
            int n = length(u8(), 1, MAX_MEMBER_ID_BYTES, "member id");
            String id = new String(bytes(n, "member id"), StandardCharsets.ISO_8859_1);
            String p = EnrolmentCodec.memberIdProblem(id);
            if (p != null) {
                throw MessageCodec.error(peer, "invalid " + type + " from " + MessageCodec.source(peer) + ": " + p);
            }
            return id;
        }

        String utf8(int n, String what) {
            need(n);
            try {
                String s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(frame.asSlice(pos, n).asByteBuffer()).toString();
                pos += n;
                return s;
            } catch (CharacterCodingException e) {
                throw MessageCodec.error(peer, type + " " + what + " from " + MessageCodec.source(peer)
                        + " is not valid UTF-8", e);
            }
        }

        InetSocketAddress address(String what) {
            int family = u8();
            int size = switch (family) {
                case FAMILY_NONE -> 0;
                case FAMILY_IPV4 -> 4;
                case FAMILY_IPV6 -> 16;
                default -> throw MessageCodec.error(peer, type + " " + what + " from " + MessageCodec.source(peer)
                        + " has unknown address family " + family + " (0, 4 or 6 expected)");
            };
            if (size == 0) {
                return null;
            }
            byte[] ip = bytes(size, what);
            int port = u16();
            if (port == 0) {
                throw MessageCodec.error(peer, type + " " + what + " from " + MessageCodec.source(peer)
                        + " has port 0");
            }
            if (size == 16 && isIpv4Mapped(ip)) {
                throw MessageCodec.error(peer, type + " " + what + " from " + MessageCodec.source(peer)
                        + " is an IPv4-mapped IPv6 address; IPv4 addresses use family 4");
            }
            try {
                return new InetSocketAddress(InetAddress.getByAddress(ip), port);
            } catch (UnknownHostException e) { // only for a wrong length, which cannot happen here
                throw MessageCodec.error(peer, type + " " + what + " is malformed", e);
            }
        }

        void requireEnd() {
            if (remaining() != 0) {
                throw MessageCodec.error(peer, type + " frame from " + MessageCodec.source(peer) + " has "
                        + remaining() + " bytes after its last field");
            }
        }

        private static boolean isIpv4Mapped(byte[] ip) {
            for (int i = 0; i < 10; i++) {
                if (ip[i] != 0) {
                    return false;
                }
            }
            return ip[10] == (byte) 0xFF && ip[11] == (byte) 0xFF;
        }
    }
}
