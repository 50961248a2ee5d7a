package io.nexar.internal.protocol;

import static io.nexar.internal.protocol.WireFormat.*;

import io.nexar.ErrorContext;
import io.nexar.Operation;
import io.nexar.ProtocolException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Encodes and decodes one {@link Message} as one frame. Stateless and thread-safe; it allocates nothing per message
 * except the decoded record (and, for Goodbye, its text).
 *
 * <pre>
 * +------------------+---------+----------+--------------------------------------+
 * | length (u32 LE)  | type u8 | flags u8 | body (layout per type, see below)    |
 * +------------------+---------+----------+--------------------------------------+
 *   0                  4         5          6                        4 + length
 *
 * HELLO     | magic u32 "NXAR" | version u16 | rank i32 | worldSize i32 | incarnation u64 |
 * DATA      | communicator i32 | tag i32 | messageSeq u64 | totalBytes u64 | offset u64 | payload ... |
 * HEARTBEAT | sequence u64 | sentNanos i64 |
 * GOODBYE   | reason u8 | detail length u16 | detail (UTF-8) |
 * COLLECTIVE       | communicator i32 | opSeq u64 | step i32 | operation u8 | dataType u8 | reduceOp u8 | root i32 |
 *                  | count i64 | totalBytes u64 | offset u64 | payload ... |
 * COLLECTIVE_ABORT | communicator i32 | opSeq u64 | reason u8 | field u8 | detail length u16 | detail (UTF-8) |
 * AGREE            | communicator i32 | generation i32 | kind u8 | hasAccepted u8 | nFailed u16 | nBallot u16 |
 *                  | nValue u16 | ranks i32 x (nFailed + nBallot + nValue) |
 * RPC_REQUEST      | communicator i32 | requestId u64 | functionId i32 | timeoutNanos i64 | payload ... |
 * RPC_RESPONSE     | requestId u64 | status u8 | code u8 | class length u16 | detail length u16 | class (UTF-8) |
 *                  | detail (UTF-8) | payload ... |
 * RPC_CANCEL       | requestId u64 |
 * RELAY            | origin i32 | destination i32 | hops u8 | hopLimit u8 | reserved u16 | inner frame ... |
 * PEER_DOWN        | rank i32 | detail length u16 | detail (UTF-8) |
 * JOIN_* (0x40-0x48), PEER_TABLE | enrolment bodies: layouts and rules in {@link EnrolmentCodec}
 * </pre>
 *
 * <p>Rules checked by {@link #decode} (and, for the fields of a record, by {@link #encode} as well, so that every
 * encoded frame decodes):
 * <ul>
 *   <li>the frame is exactly {@code 4 + length} bytes, {@code length} is at least
 *       {@link WireFormat#MIN_FRAME_LENGTH} and at most the receiver's {@code maxFrameBytes};</li>
 *   <li>the type code is known and the flags are 0; fixed-size bodies have exactly their size;</li>
 *   <li>Hello: the magic is {@link WireFormat#MAGIC}, the version is {@link WireFormat#VERSION} (checked before
 *       the body size, so a future version with a longer Hello is reported as a version mismatch),
 *       {@code worldSize >= 1} and {@code 0 <= rank < worldSize};</li>
 *   <li>Data: {@code communicator >= 0}, {@code tag >= 0}, {@code totalBytes >= 0}, {@code offset >= 0} and
 *       {@code offset + payload <= totalBytes};</li>
 *   <li>Goodbye: a known reason code, a detail of at most {@link WireFormat#MAX_TEXT_BYTES} bytes of well-formed
 *       UTF-8 that ends exactly at the end of the frame.</li>
 * </ul>
 * Any violation raises a {@link ProtocolException} that names the peer and what was wrong; decoding never throws
 * anything else, whatever the bytes.
 */
public final class MessageCodec {

    private MessageCodec() {
    }

    /**
     * The size of {@code m}'s whole frame, length prefix included.
     *
     * @throws IllegalArgumentException if {@code m} cannot be put on the wire (see {@link #encode})
     */
    public static long encodedSize(Message m) {
        Objects.requireNonNull(m, "m");
        String problem = problem(m);
        if (problem != null) {
            throw new IllegalArgumentException("cannot encode " + m.type() + ": " + problem);
        }
        return switch (m) {
            case Message.Hello _ -> HELLO_FRAME_BYTES;
            case Message.Data d -> DATA_HEADER_BYTES + d.payload().byteSize();
            case Message.Heartbeat _ -> HEARTBEAT_FRAME_BYTES;
            case Message.Goodbye g -> GOODBYE_DETAIL_OFFSET + utf8Length(g.detail());
            case Message.Collective c -> COLLECTIVE_HEADER_BYTES + c.payload().byteSize();
            case Message.CollectiveAbort a -> ABORT_DETAIL_OFFSET + utf8Length(a.detail());
            case Message.Agree a -> AGREE_RANKS_OFFSET + 4L * (a.failed().length + ballot(a).length
                    + a.value().length);
            case Message.Status st -> STATUS_RANKS_OFFSET + 4L * st.waitingFor().length + utf8Length(st.text());
            case Message.RpcRequest r -> RPC_REQUEST_PAYLOAD_OFFSET + r.payload().byteSize();
            case Message.RpcResponse r -> RPC_RESPONSE_TEXT_OFFSET + utf8Length(r.remoteClass()) + utf8Length(r.detail())
                    + r.payload().byteSize();
            case Message.RpcCancel _ -> RPC_CANCEL_FRAME_BYTES;
            case Message.Relay r -> RELAY_FRAME_OFFSET + r.frame().byteSize();
            case Message.PeerDown d -> PEER_DOWN_DETAIL_OFFSET + utf8Length(d.detail());
            case EnrolmentMessage e -> EnrolmentCodec.encodedSize(e);
        };
    }

    /**
     * Writes {@code m} as one frame at offset 0 of {@code dst}. A Data payload is copied once, into {@code dst}.
     *
     * @param m the message; its fields must satisfy the decoding rules above, the Hello version must fit in a u16,
     *          a Data payload must be at most {@link WireFormat#MAX_DATA_PAYLOAD_BYTES} and a Goodbye detail
     *          well-formed (no unpaired surrogates) and at most {@link WireFormat#MAX_TEXT_BYTES} bytes of UTF-8
     * @param dst where to write; only its first {@link #encodedSize(Message)} bytes are touched
     * @return the number of bytes written, {@link #encodedSize(Message)}
     * @throws IllegalArgumentException if {@code m} breaks a rule or {@code dst} is smaller than the frame
     */
    public static long encode(Message m, MemorySegment dst) {
        return encode(m, dst, true);
    }

    /**
     * Writes the header of a {@link Message.Data} or {@link Message.Collective} at offset 0 of {@code dst}, its length
     * field counting the whole frame, without the payload: the sender writes the payload from where it is (no copy).
     * Other messages are written whole, as by {@link #encode(Message, MemorySegment)}.
     *
     * @return the bytes written: the header's, or the whole frame's for messages without a payload
     * @throws IllegalArgumentException as {@link #encode(Message, MemorySegment)}
     */
    public static long encodeHeader(Message m, MemorySegment dst) {
        return encode(m, dst, false);
    }

    private static long encode(Message m, MemorySegment dst, boolean withPayload) {
        long size = encodedSize(m);
        long written = withPayload ? size : switch (m) {
            case Message.Data _ -> DATA_HEADER_BYTES;
            case Message.Collective _ -> COLLECTIVE_HEADER_BYTES;
            default -> size;
        };
        if (dst.byteSize() < written) {
            throw new IllegalArgumentException("destination has " + dst.byteSize() + " bytes, the " + m.type()
                    + " frame needs " + written);
        }
        dst.set(INT_LE, 0, (int) (size - LENGTH_PREFIX_BYTES));
        dst.set(BYTE, TYPE_OFFSET, (byte) m.type().code());
        dst.set(BYTE, FLAGS_OFFSET, (byte) 0);
        switch (m) {
            case Message.Hello h -> {
                dst.set(INT_LE, HELLO_MAGIC_OFFSET, MAGIC);
                dst.set(SHORT_LE, HELLO_VERSION_OFFSET, (short) h.version());
                dst.set(INT_LE, HELLO_RANK_OFFSET, h.rank());
                dst.set(INT_LE, HELLO_WORLD_SIZE_OFFSET, h.worldSize());
                dst.set(LONG_LE, HELLO_INCARNATION_OFFSET, h.incarnation());
            }
            case Message.Data d -> {
                dst.set(INT_LE, DATA_COMMUNICATOR_OFFSET, d.communicator());
                dst.set(INT_LE, DATA_TAG_OFFSET, d.tag());
                dst.set(LONG_LE, DATA_MESSAGE_SEQ_OFFSET, d.messageSeq());
                dst.set(LONG_LE, DATA_TOTAL_BYTES_OFFSET, d.totalBytes());
                dst.set(LONG_LE, DATA_OFFSET_OFFSET, d.offset());
                if (withPayload) {
                    MemorySegment.copy(d.payload(), 0, dst, DATA_PAYLOAD_OFFSET, d.payload().byteSize());
                }
            }
            case Message.Heartbeat hb -> {
                dst.set(LONG_LE, HEARTBEAT_SEQUENCE_OFFSET, hb.sequence());
                dst.set(LONG_LE, HEARTBEAT_SENT_NANOS_OFFSET, hb.sentNanos());
            }
            case Message.Goodbye g -> {
                byte[] text = g.detail().getBytes(StandardCharsets.UTF_8); // well-formed: checked by encodedSize
                dst.set(BYTE, GOODBYE_REASON_OFFSET, (byte) g.reason().code());
                dst.set(SHORT_LE, GOODBYE_DETAIL_LENGTH_OFFSET, (short) text.length);
                MemorySegment.copy(text, 0, dst, BYTE, GOODBYE_DETAIL_OFFSET, text.length);
            }
            case Message.Collective c -> {
                dst.set(INT_LE, COLLECTIVE_COMMUNICATOR_OFFSET, c.communicator());
                dst.set(LONG_LE, COLLECTIVE_OP_SEQ_OFFSET, c.opSeq());
                dst.set(INT_LE, COLLECTIVE_STEP_OFFSET, c.step());
                dst.set(BYTE, COLLECTIVE_OPERATION_OFFSET, (byte) c.operation());
                dst.set(BYTE, COLLECTIVE_DATA_TYPE_OFFSET, (byte) c.dataType());
                dst.set(BYTE, COLLECTIVE_REDUCE_OP_OFFSET, (byte) c.reduceOp());
                dst.set(INT_LE, COLLECTIVE_ROOT_OFFSET, c.root());
                dst.set(LONG_LE, COLLECTIVE_COUNT_OFFSET, c.count());
                dst.set(LONG_LE, COLLECTIVE_TOTAL_BYTES_OFFSET, c.totalBytes());
                dst.set(LONG_LE, COLLECTIVE_CHUNK_OFFSET_OFFSET, c.offset());
                if (withPayload) {
                    MemorySegment.copy(c.payload(), 0, dst, COLLECTIVE_PAYLOAD_OFFSET, c.payload().byteSize());
                }
            }
            case Message.CollectiveAbort a -> {
                byte[] text = a.detail().getBytes(StandardCharsets.UTF_8); // well-formed: checked by encodedSize
                dst.set(INT_LE, ABORT_COMMUNICATOR_OFFSET, a.communicator());
                dst.set(LONG_LE, ABORT_OP_SEQ_OFFSET, a.opSeq());
                dst.set(BYTE, ABORT_REASON_OFFSET, (byte) a.reason().code());
                dst.set(BYTE, ABORT_FIELD_OFFSET, (byte) a.field());
                dst.set(INT_LE, ABORT_CULPRIT_OFFSET, a.culprit());
                dst.set(SHORT_LE, ABORT_DETAIL_LENGTH_OFFSET, (short) text.length);
                MemorySegment.copy(text, 0, dst, BYTE, ABORT_DETAIL_OFFSET, text.length);
            }
            case Message.Agree a -> {
                dst.set(INT_LE, AGREE_COMMUNICATOR_OFFSET, a.communicator());
                dst.set(INT_LE, AGREE_GENERATION_OFFSET, a.generation());
                dst.set(BYTE, AGREE_KIND_OFFSET, (byte) a.kind().code());
                dst.set(BYTE, AGREE_HAS_ACCEPTED_OFFSET, (byte) (a.acceptedBallot() == null ? 0 : 1));
                int[][] sets = {a.failed(), ballot(a), a.value()};
                long at = AGREE_RANKS_OFFSET;
                for (int i = 0; i < 3; i++) {
                    dst.set(SHORT_LE, AGREE_COUNTS_OFFSET + 2L * i, (short) sets[i].length);
                    for (int r : sets[i]) {
                        dst.set(INT_LE, at, r);
                        at += 4;
                    }
                }
            }
            case Message.Status st -> {
                byte[] text = st.text().getBytes(StandardCharsets.UTF_8); // well-formed: checked by encodedSize
                dst.set(BYTE, STATUS_KIND_OFFSET, (byte) (st.reply() ? 1 : 0));
                dst.set(LONG_LE, STATUS_REQUEST_OFFSET, st.requestId());
                dst.set(SHORT_LE, STATUS_RANK_COUNT_OFFSET, (short) st.waitingFor().length);
                dst.set(SHORT_LE, STATUS_TEXT_LENGTH_OFFSET, (short) text.length);
                long at = STATUS_RANKS_OFFSET;
                for (int r : st.waitingFor()) {
                    dst.set(INT_LE, at, r);
                    at += 4;
                }
                MemorySegment.copy(text, 0, dst, BYTE, at, text.length);
            }
            case Message.RpcRequest r -> {
                dst.set(INT_LE, RPC_REQUEST_COMMUNICATOR_OFFSET, r.communicator());
                dst.set(LONG_LE, RPC_REQUEST_ID_OFFSET, r.requestId());
                dst.set(INT_LE, RPC_REQUEST_FUNCTION_OFFSET, r.functionId());
                dst.set(LONG_LE, RPC_REQUEST_TIMEOUT_OFFSET, r.timeoutNanos());
                MemorySegment.copy(r.payload(), 0, dst, RPC_REQUEST_PAYLOAD_OFFSET, r.payload().byteSize());
            }
            case Message.RpcResponse r -> {
                byte[] cls = r.remoteClass().getBytes(StandardCharsets.UTF_8); // well-formed: checked by encodedSize
                byte[] detail = r.detail().getBytes(StandardCharsets.UTF_8);
                dst.set(LONG_LE, RPC_RESPONSE_ID_OFFSET, r.requestId());
                dst.set(BYTE, RPC_RESPONSE_STATUS_OFFSET, (byte) r.status().code());
                dst.set(BYTE, RPC_RESPONSE_CODE_OFFSET, (byte) (r.code() == null ? 0 : RpcStatus.wireCode(r.code())));
                dst.set(SHORT_LE, RPC_RESPONSE_CLASS_LENGTH_OFFSET, (short) cls.length);
                dst.set(SHORT_LE, RPC_RESPONSE_DETAIL_LENGTH_OFFSET, (short) detail.length);
                MemorySegment.copy(cls, 0, dst, BYTE, RPC_RESPONSE_TEXT_OFFSET, cls.length);
                MemorySegment.copy(detail, 0, dst, BYTE, RPC_RESPONSE_TEXT_OFFSET + cls.length, detail.length);
                MemorySegment.copy(r.payload(), 0, dst, RPC_RESPONSE_TEXT_OFFSET + cls.length + detail.length,
                        r.payload().byteSize());
            }
            case Message.RpcCancel c -> dst.set(LONG_LE, RPC_CANCEL_ID_OFFSET, c.requestId());
            case Message.Relay r -> {
                dst.set(INT_LE, RELAY_ORIGIN_OFFSET, r.origin());
                dst.set(INT_LE, RELAY_DESTINATION_OFFSET, r.destination());
                dst.set(BYTE, RELAY_HOPS_OFFSET, (byte) r.hops());
                dst.set(BYTE, RELAY_HOP_LIMIT_OFFSET, (byte) r.hopLimit());
                dst.set(SHORT_LE, RELAY_RESERVED_OFFSET, (short) 0);
                MemorySegment.copy(r.frame(), 0, dst, RELAY_FRAME_OFFSET, r.frame().byteSize());
            }
            case Message.PeerDown d -> {
                byte[] text = d.detail().getBytes(StandardCharsets.UTF_8); // well-formed: checked by encodedSize
                dst.set(INT_LE, PEER_DOWN_RANK_OFFSET, d.rank());
                dst.set(SHORT_LE, PEER_DOWN_DETAIL_LENGTH_OFFSET, (short) text.length);
                MemorySegment.copy(text, 0, dst, BYTE, PEER_DOWN_DETAIL_OFFSET, text.length);
            }
            case EnrolmentMessage e -> EnrolmentCodec.encodeBody(e, dst);
        }
        return written;
    }

    /**
     * Decodes exactly one whole frame, length prefix included.
     *
     * <p>A decoded {@link Message.Data#payload()} is a slice of {@code frame}, not a copy: it is valid only as long
     * as {@code frame}'s memory is, and it changes if that memory is reused.
     *
     * @param peer the rank the bytes came from, named in error messages ({@code -1} if not yet known)
     * @param frame the frame; its size must be exactly {@code 4 + length}
     * @param maxFrameBytes the largest accepted value of the length field (the frame size without its prefix)
     * @return the message
     * @throws ProtocolException if the bytes break any rule; never any other exception for any content
     * @throws IllegalArgumentException if {@code maxFrameBytes < MIN_FRAME_LENGTH}
     */
    public static Message decode(int peer, MemorySegment frame, long maxFrameBytes) {
        checkMaxFrameBytes(maxFrameBytes);
        long size = frame.byteSize();
        if (size < LENGTH_PREFIX_BYTES) {
            throw error(peer, "truncated frame from " + source(peer) + ": " + size + " bytes, the length prefix alone"
                    + " needs " + LENGTH_PREFIX_BYTES);
        }
        long length = checkLength(peer, frame.get(INT_LE, 0), maxFrameBytes);
        if (size - LENGTH_PREFIX_BYTES != length) {
            throw error(peer, (size - LENGTH_PREFIX_BYTES < length ? "truncated" : "trailing bytes after") + " frame"
                    + " from " + source(peer) + ": the length prefix says " + length + " bytes, "
                    + (size - LENGTH_PREFIX_BYTES) + " follow it");
        }
        int code = frame.get(BYTE, TYPE_OFFSET) & 0xFF;
        MessageType type = MessageType.fromCode(code);
        if (type == null) {
            throw error(peer, "unknown message type " + hex(code) + " from " + source(peer));
        }
        int flags = frame.get(BYTE, FLAGS_OFFSET) & 0xFF;
        if (flags != 0) {
            throw error(peer, type + " from " + source(peer) + " has flags " + hex(flags) + ", expected 0x00");
        }
        Message m = switch (type) {
            case HELLO -> decodeHello(peer, frame);
            case DATA -> {
                requireSize(peer, type, frame, DATA_PAYLOAD_OFFSET, false);
                yield new Message.Data(frame.get(INT_LE, DATA_COMMUNICATOR_OFFSET), frame.get(INT_LE, DATA_TAG_OFFSET),
                        frame.get(LONG_LE, DATA_MESSAGE_SEQ_OFFSET), frame.get(LONG_LE, DATA_TOTAL_BYTES_OFFSET),
                        frame.get(LONG_LE, DATA_OFFSET_OFFSET), frame.asSlice(DATA_PAYLOAD_OFFSET));
            }
            case HEARTBEAT -> {
                requireSize(peer, type, frame, HEARTBEAT_FRAME_BYTES, true);
                yield new Message.Heartbeat(frame.get(LONG_LE, HEARTBEAT_SEQUENCE_OFFSET),
                        frame.get(LONG_LE, HEARTBEAT_SENT_NANOS_OFFSET));
            }
            case GOODBYE -> decodeGoodbye(peer, frame);
            case COLLECTIVE -> {
                requireSize(peer, type, frame, COLLECTIVE_PAYLOAD_OFFSET, false);
                yield new Message.Collective(frame.get(INT_LE, COLLECTIVE_COMMUNICATOR_OFFSET),
                        frame.get(LONG_LE, COLLECTIVE_OP_SEQ_OFFSET), frame.get(INT_LE, COLLECTIVE_STEP_OFFSET),
                        frame.get(BYTE, COLLECTIVE_OPERATION_OFFSET) & 0xFF,
                        frame.get(BYTE, COLLECTIVE_DATA_TYPE_OFFSET) & 0xFF,
                        frame.get(BYTE, COLLECTIVE_REDUCE_OP_OFFSET) & 0xFF, frame.get(INT_LE, COLLECTIVE_ROOT_OFFSET),
                        frame.get(LONG_LE, COLLECTIVE_COUNT_OFFSET), frame.get(LONG_LE, COLLECTIVE_TOTAL_BYTES_OFFSET),
                        frame.get(LONG_LE, COLLECTIVE_CHUNK_OFFSET_OFFSET), frame.asSlice(COLLECTIVE_PAYLOAD_OFFSET));
            }
            case COLLECTIVE_ABORT -> decodeAbort(peer, frame);
            case AGREE -> decodeAgree(peer, frame);
            case STATUS -> decodeStatus(peer, frame);
            case RPC_REQUEST -> {
                requireSize(peer, type, frame, RPC_REQUEST_PAYLOAD_OFFSET, false);
                yield new Message.RpcRequest(frame.get(INT_LE, RPC_REQUEST_COMMUNICATOR_OFFSET),
                        frame.get(LONG_LE, RPC_REQUEST_ID_OFFSET), frame.get(INT_LE, RPC_REQUEST_FUNCTION_OFFSET),
                        frame.get(LONG_LE, RPC_REQUEST_TIMEOUT_OFFSET), frame.asSlice(RPC_REQUEST_PAYLOAD_OFFSET));
            }
            case RPC_RESPONSE -> decodeRpcResponse(peer, frame);
            case RPC_CANCEL -> {
                requireSize(peer, type, frame, RPC_CANCEL_FRAME_BYTES, true);
                yield new Message.RpcCancel(frame.get(LONG_LE, RPC_CANCEL_ID_OFFSET));
            }
            case PEER_DOWN -> {
                requireSize(peer, type, frame, PEER_DOWN_DETAIL_OFFSET, false);
                int textBytes = frame.get(SHORT_LE, PEER_DOWN_DETAIL_LENGTH_OFFSET) & 0xFFFF;
                if (textBytes > MAX_TEXT_BYTES) {
                    throw error(peer, "PEER_DOWN detail of " + textBytes + " bytes from " + source(peer)
                            + " exceeds the maximum of " + MAX_TEXT_BYTES + " bytes");
                }
                requireSize(peer, type, frame, PEER_DOWN_DETAIL_OFFSET + textBytes, true);
                yield new Message.PeerDown(frame.get(INT_LE, PEER_DOWN_RANK_OFFSET),
                        utf8(peer, type, frame.asSlice(PEER_DOWN_DETAIL_OFFSET, textBytes)));
            }
            case RELAY -> {
                requireSize(peer, type, frame, RELAY_FRAME_OFFSET, false);
                int reserved = frame.get(SHORT_LE, RELAY_RESERVED_OFFSET) & 0xFFFF;
                if (reserved != 0) {
                    throw error(peer, "invalid RELAY from " + source(peer) + ": reserved field is " + hex(reserved)
                            + ", expected 0");
                }
                yield new Message.Relay(frame.get(INT_LE, RELAY_ORIGIN_OFFSET),
                        frame.get(INT_LE, RELAY_DESTINATION_OFFSET), frame.get(BYTE, RELAY_HOPS_OFFSET) & 0xFF,
                        frame.get(BYTE, RELAY_HOP_LIMIT_OFFSET) & 0xFF, frame.asSlice(RELAY_FRAME_OFFSET));
            }
            case JOIN_CHALLENGE, JOIN_REQUEST, JOIN_ACCEPTED, JOIN_REFUSED, PEER_TABLE, ELASTIC_JOIN_REQUEST,
                 GROW_POLL, ADMISSION, SEED_PROOF ->
                    EnrolmentCodec.decode(peer, type, frame);
        };
        String problem = problem(m);
        if (problem != null) {
            throw error(peer, "invalid " + type + " from " + source(peer) + ": " + problem);
        }
        return m;
    }

    /** Decodes well-formed UTF-8 text of a frame, or throws naming the peer and the message type. */
    private static String utf8(int peer, MessageType type, MemorySegment text) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(text.asByteBuffer()).toString();
        } catch (CharacterCodingException e) {
            throw error(peer, type + " text from " + source(peer) + " is not valid UTF-8", e);
        }
    }

    /** What is wrong with a relay envelope, or null; the inner frame's type is checked here, its body on arrival. */
    private static String relayProblem(Message.Relay r) {
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
                || inner.code() >= MessageType.JOIN_CHALLENGE.code()
                        && inner.code() <= MessageType.SEED_PROOF.code()) {
            return "inner frame of type " + (inner == null ? hex(r.frame().get(BYTE, TYPE_OFFSET) & 0xFF) : inner)
                    + " cannot be relayed";
        }
        return null;
    }

    // ---------------------------------------------------------------- package-private helpers for FrameDecoder

    /**
     * Checks a length field against the bounds; returns it as an unsigned value.
     *
     * @throws ProtocolException naming the claimed length and the maximum
     */
    static long checkLength(int peer, int lengthField, long maxFrameBytes) {
        long length = Integer.toUnsignedLong(lengthField);
        if (length > maxFrameBytes) {
            throw error(peer, "frame of " + length + " bytes from " + source(peer) + " exceeds the maximum of "
                    + maxFrameBytes + " bytes");
        }
        if (length < MIN_FRAME_LENGTH) {
            throw error(peer, "frame of " + length + " bytes from " + source(peer) + " is shorter than the "
                    + MIN_FRAME_LENGTH + "-byte type and flags header");
        }
        return length;
    }

    /** Rejects a receiver limit that could not even hold an empty frame. */
    static void checkMaxFrameBytes(long maxFrameBytes) {
        if (maxFrameBytes < MIN_FRAME_LENGTH) {
            throw new IllegalArgumentException("maxFrameBytes " + maxFrameBytes + " is less than the minimum frame"
                    + " length " + MIN_FRAME_LENGTH);
        }
    }

    /** "rank 3", or a phrase for a peer whose rank is not known yet. */
    static String source(int peer) {
        return peer >= 0 ? "rank " + peer : "an unidentified peer";
    }

    static ProtocolException error(int peer, String detail) {
        return error(peer, detail, null);
    }

    static ProtocolException error(int peer, String detail, Throwable cause) {
        return new ProtocolException(ErrorContext.of(Operation.DECODE).withPeer(peer), detail, cause);
    }

    // ---------------------------------------------------------------- private

    private static Message.Hello decodeHello(int peer, MemorySegment frame) {
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

    private static Message.Goodbye decodeGoodbye(int peer, MemorySegment frame) {
        requireSize(peer, MessageType.GOODBYE, frame, GOODBYE_DETAIL_OFFSET, false);
        int code = frame.get(BYTE, GOODBYE_REASON_OFFSET) & 0xFF;
        GoodbyeReason reason = GoodbyeReason.fromCode(code);
        if (reason == null) {
            throw error(peer, "unknown GOODBYE reason " + hex(code) + " from " + source(peer));
        }
        int textBytes = frame.get(SHORT_LE, GOODBYE_DETAIL_LENGTH_OFFSET) & 0xFFFF;
        if (textBytes > MAX_TEXT_BYTES) {
            throw error(peer, "GOODBYE detail of " + textBytes + " bytes from " + source(peer)
                    + " exceeds the maximum of " + MAX_TEXT_BYTES + " bytes");
        }
        requireSize(peer, MessageType.GOODBYE, frame, GOODBYE_DETAIL_OFFSET + textBytes, true);
        try {
            String detail = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(frame.asSlice(GOODBYE_DETAIL_OFFSET, textBytes).asByteBuffer())
                    .toString();
            return new Message.Goodbye(reason, detail);
        } catch (CharacterCodingException e) {
            throw error(peer, "GOODBYE detail from " + source(peer) + " is not valid UTF-8", e);
        }
    }

    private static Message.CollectiveAbort decodeAbort(int peer, MemorySegment frame) {
        requireSize(peer, MessageType.COLLECTIVE_ABORT, frame, ABORT_DETAIL_OFFSET, false);
        int code = frame.get(BYTE, ABORT_REASON_OFFSET) & 0xFF;
        AbortReason reason = AbortReason.fromCode(code);
        if (reason == null) {
            throw error(peer, "unknown COLLECTIVE_ABORT reason " + hex(code) + " from " + source(peer));
        }
        int textBytes = frame.get(SHORT_LE, ABORT_DETAIL_LENGTH_OFFSET) & 0xFFFF;
        if (textBytes > MAX_TEXT_BYTES) {
            throw error(peer, "COLLECTIVE_ABORT detail of " + textBytes + " bytes from " + source(peer)
                    + " exceeds the maximum of " + MAX_TEXT_BYTES + " bytes");
        }
        requireSize(peer, MessageType.COLLECTIVE_ABORT, frame, ABORT_DETAIL_OFFSET + textBytes, true);
        try {
            String detail = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(frame.asSlice(ABORT_DETAIL_OFFSET, textBytes).asByteBuffer())
                    .toString();
            return new Message.CollectiveAbort(frame.get(INT_LE, ABORT_COMMUNICATOR_OFFSET),
                    frame.get(LONG_LE, ABORT_OP_SEQ_OFFSET), reason, frame.get(BYTE, ABORT_FIELD_OFFSET) & 0xFF,
                    frame.get(INT_LE, ABORT_CULPRIT_OFFSET), detail);
        } catch (CharacterCodingException e) {
            throw error(peer, "COLLECTIVE_ABORT detail from " + source(peer) + " is not valid UTF-8", e);
        }
    }

    /** Requires the frame to be exactly (or, if not {@code exact}, at least) {@code bytes} long. */
    private static Message.Agree decodeAgree(int peer, MemorySegment frame) {
        requireSize(peer, MessageType.AGREE, frame, AGREE_RANKS_OFFSET, false);
        int code = frame.get(BYTE, AGREE_KIND_OFFSET) & 0xFF;
        AgreeKind kind = AgreeKind.fromCode(code);
        if (kind == null) {
            throw error(peer, "unknown AGREE kind " + hex(code) + " from " + source(peer));
        }
        int hasAccepted = frame.get(BYTE, AGREE_HAS_ACCEPTED_OFFSET) & 0xFF;
        if (hasAccepted > 1) {
            throw error(peer, "AGREE from " + source(peer) + " has hasAccepted " + hex(hasAccepted) + ", expected 0 or 1");
        }
        int[] counts = new int[3];
        long total = 0;
        for (int i = 0; i < 3; i++) {
            counts[i] = frame.get(SHORT_LE, AGREE_COUNTS_OFFSET + 2L * i) & 0xFFFF;
            total += counts[i];
        }
        if (hasAccepted == 0 && counts[1] != 0) { // else the ballot is dropped in silence (ProtocolFuzzTest)
            throw error(peer, "AGREE from " + source(peer) + " has a ballot of " + counts[1]
                    + " ranks but hasAccepted 0");
        }
        requireSize(peer, MessageType.AGREE, frame, AGREE_RANKS_OFFSET + 4 * total, true);
        int[][] sets = new int[3][];
        long at = AGREE_RANKS_OFFSET;
        for (int i = 0; i < 3; i++) {
            sets[i] = new int[counts[i]];
            for (int j = 0; j < counts[i]; j++) {
                sets[i][j] = frame.get(INT_LE, at);
                at += 4;
            }
        }
        return new Message.Agree(frame.get(INT_LE, AGREE_COMMUNICATOR_OFFSET),
                frame.get(INT_LE, AGREE_GENERATION_OFFSET), kind, sets[0], hasAccepted == 1 ? sets[1] : null,
                sets[2]);
    }

    private static Message.Status decodeStatus(int peer, MemorySegment frame) {
        requireSize(peer, MessageType.STATUS, frame, STATUS_RANKS_OFFSET, false);
        int kind = frame.get(BYTE, STATUS_KIND_OFFSET) & 0xFF;
        if (kind > 1) {
            throw error(peer, "STATUS from " + source(peer) + " has kind " + hex(kind) + ", expected 0 or 1");
        }
        int count = frame.get(SHORT_LE, STATUS_RANK_COUNT_OFFSET) & 0xFFFF;
        int textBytes = frame.get(SHORT_LE, STATUS_TEXT_LENGTH_OFFSET) & 0xFFFF;
        if (textBytes > MAX_TEXT_BYTES) {
            throw error(peer, "STATUS text of " + textBytes + " bytes from " + source(peer)
                    + " exceeds the maximum of " + MAX_TEXT_BYTES + " bytes");
        }
        long textAt = STATUS_RANKS_OFFSET + 4L * count;
        requireSize(peer, MessageType.STATUS, frame, textAt + textBytes, true);
        int[] ranks = new int[count];
        for (int i = 0; i < count; i++) {
            ranks[i] = frame.get(INT_LE, STATUS_RANKS_OFFSET + 4L * i);
        }
        try {
            String text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(frame.asSlice(textAt, textBytes).asByteBuffer())
                    .toString();
            return new Message.Status(kind == 1, frame.get(LONG_LE, STATUS_REQUEST_OFFSET), ranks, text);
        } catch (CharacterCodingException e) {
            throw error(peer, "STATUS text from " + source(peer) + " is not valid UTF-8", e);
        }
    }

    private static Message.RpcResponse decodeRpcResponse(int peer, MemorySegment frame) {
        requireSize(peer, MessageType.RPC_RESPONSE, frame, RPC_RESPONSE_TEXT_OFFSET, false);
        int statusCode = frame.get(BYTE, RPC_RESPONSE_STATUS_OFFSET) & 0xFF;
        RpcStatus status = RpcStatus.fromCode(statusCode);
        if (status == null) {
            throw error(peer, "unknown RPC_RESPONSE status " + hex(statusCode) + " from " + source(peer));
        }
        int wireCode = frame.get(BYTE, RPC_RESPONSE_CODE_OFFSET) & 0xFF;
        io.nexar.ErrorCode code = wireCode == 0 ? null : RpcStatus.errorCode(wireCode);
        if (wireCode != 0 && code == null) {
            throw error(peer, "unknown RPC_RESPONSE error code " + hex(wireCode) + " from " + source(peer));
        }
        int classBytes = frame.get(SHORT_LE, RPC_RESPONSE_CLASS_LENGTH_OFFSET) & 0xFFFF;
        int detailBytes = frame.get(SHORT_LE, RPC_RESPONSE_DETAIL_LENGTH_OFFSET) & 0xFFFF;
        if (classBytes > MAX_TEXT_BYTES || detailBytes > MAX_TEXT_BYTES) {
            throw error(peer, "RPC_RESPONSE text of " + Math.max(classBytes, detailBytes) + " bytes from "
                    + source(peer) + " exceeds the maximum of " + MAX_TEXT_BYTES + " bytes");
        }
        long payloadAt = RPC_RESPONSE_TEXT_OFFSET + (long) classBytes + detailBytes;
        requireSize(peer, MessageType.RPC_RESPONSE, frame, payloadAt, false);
        String remoteClass = utf8(peer, MessageType.RPC_RESPONSE, frame, RPC_RESPONSE_TEXT_OFFSET, classBytes);
        String detail = utf8(peer, MessageType.RPC_RESPONSE, frame, RPC_RESPONSE_TEXT_OFFSET + classBytes,
                detailBytes);
        return new Message.RpcResponse(frame.get(LONG_LE, RPC_RESPONSE_ID_OFFSET), status, code, remoteClass, detail,
                frame.asSlice(payloadAt));
    }

    /** Strict UTF-8 text of a frame field. */
    private static String utf8(int peer, MessageType type, MemorySegment frame, long at, int bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(frame.asSlice(at, bytes).asByteBuffer())
                    .toString();
        } catch (CharacterCodingException e) {
            throw error(peer, type + " text from " + source(peer) + " is not valid UTF-8", e);
        }
    }

    /** Null if {@code s} fits a text field: well-formed and at most MAX_TEXT_BYTES of UTF-8. */
    private static String textProblem(String name, String s) {
        if (s == null) {
            return name + " is null";
        }
        long bytes = utf8Length(s);
        if (bytes < 0) {
            return name + " contains an unpaired surrogate";
        } else if (bytes > MAX_TEXT_BYTES) {
            return name + " of " + bytes + " UTF-8 bytes exceeds the maximum of " + MAX_TEXT_BYTES;
        }
        return null;
    }

    /** An AGREE's accepted ballot as it travels: empty when there is none. */
    private static int[] ballot(Message.Agree a) {
        return a.acceptedBallot() == null ? new int[0] : a.acceptedBallot();
    }

    /** Null if {@code ranks} is a valid AGREE set: sorted, no duplicates, non-negative, at most AGREE_MAX_SET. */
    private static String setProblem(String name, int[] ranks) {
        if (ranks == null) {
            return name + " is null";
        }
        if (ranks.length > AGREE_MAX_SET) {
            return name + " has " + ranks.length + " ranks, more than " + AGREE_MAX_SET;
        }
        for (int i = 0; i < ranks.length; i++) {
            if (ranks[i] < 0 || (i > 0 && ranks[i] <= ranks[i - 1])) {
                return name + " is not a sorted set of non-negative ranks";
            }
        }
        return null;
    }

    private static void requireSize(int peer, MessageType type, MemorySegment frame, long bytes, boolean exact) {
        long size = frame.byteSize();
        if (size < bytes || (exact && size > bytes)) {
            throw error(peer, type + " frame from " + source(peer) + " has " + size + " bytes, expected "
                    + (exact ? "" : "at least ") + bytes);
        }
    }

    /**
     * What is wrong with a message's fields, or null if it may go on the wire. One rule set for both directions:
     * encode turns a problem into an IllegalArgumentException, decode into a ProtocolException.
     */
    private static String problem(Message m) {
        return switch (m) {
            case Message.Hello h -> {
                if (h.version() < 0 || h.version() > 0xFFFF) {
                    yield "version " + h.version() + " does not fit in a u16";
                } else if (h.worldSize() < 1) {
                    yield "worldSize " + h.worldSize() + " is less than 1";
                } else if (h.rank() < 0 || h.rank() >= h.worldSize()) {
                    yield "rank " + h.rank() + " is not in [0, " + h.worldSize() + ")";
                }
                yield null;
            }
            case Message.Data d -> {
                if (d.communicator() < 0) {
                    yield "communicator " + d.communicator() + " is negative";
                } else if (d.tag() < 0) {
                    yield "tag " + d.tag() + " is negative";
                } else if (d.totalBytes() < 0) {
                    yield "totalBytes " + d.totalBytes() + " is negative";
                } else if (d.offset() < 0) {
                    yield "offset " + d.offset() + " is negative";
                } else if (d.payload() == null) {
                    yield "payload is null";
                } else if (d.payload().byteSize() > MAX_DATA_PAYLOAD_BYTES) {
                    yield "payload of " + d.payload().byteSize() + " bytes exceeds the maximum of "
                            + MAX_DATA_PAYLOAD_BYTES + " per frame; send it in chunks";
                } else if (d.offset() > d.totalBytes() - d.payload().byteSize()) { // no overflow: both are >= 0
                    yield "chunk of " + d.payload().byteSize() + " bytes at offset " + d.offset()
                            + " runs past totalBytes " + d.totalBytes();
                }
                yield null;
            }
            case Message.Heartbeat _ -> null;
            case Message.Collective c -> {
                if (c.communicator() < 0) {
                    yield "communicator " + c.communicator() + " is negative";
                } else if (c.opSeq() < 0) {
                    yield "opSeq " + c.opSeq() + " is negative";
                } else if (c.step() < 0) {
                    yield "step " + c.step() + " is negative";
                } else if (c.operation() < 0 || c.operation() > 0xFF || c.dataType() < 0 || c.dataType() > 0xFF
                        || c.reduceOp() < 0 || c.reduceOp() > 0xFF) {
                    yield "operation, dataType or reduceOp does not fit in a u8";
                } else if (c.root() < -1) {
                    yield "root " + c.root() + " is less than -1";
                } else if (c.count() < -1) {
                    yield "count " + c.count() + " is less than -1";
                } else if (c.totalBytes() < 0) {
                    yield "totalBytes " + c.totalBytes() + " is negative";
                } else if (c.offset() < 0) {
                    yield "offset " + c.offset() + " is negative";
                } else if (c.payload() == null) {
                    yield "payload is null";
                } else if (c.payload().byteSize() > MAX_COLLECTIVE_PAYLOAD_BYTES) {
                    yield "payload of " + c.payload().byteSize() + " bytes exceeds the maximum of "
                            + MAX_COLLECTIVE_PAYLOAD_BYTES + " per frame; send it in chunks";
                } else if (c.offset() > c.totalBytes() - c.payload().byteSize()) {
                    yield "chunk of " + c.payload().byteSize() + " bytes at offset " + c.offset()
                            + " runs past totalBytes " + c.totalBytes();
                }
                yield null;
            }
            case Message.CollectiveAbort a -> {
                if (a.communicator() < 0) {
                    yield "communicator " + a.communicator() + " is negative";
                } else if (a.opSeq() < 0) {
                    yield "opSeq " + a.opSeq() + " is negative";
                } else if (a.reason() == null) {
                    yield "reason is null";
                } else if (a.field() < 0 || a.field() > 0xFF) {
                    yield "field " + a.field() + " does not fit in a u8";
                } else if (a.culprit() < -1) {
                    yield "culprit " + a.culprit() + " is neither a world rank nor -1";
                } else if (a.detail() == null) {
                    yield "detail is null";
                }
                long bytes = utf8Length(a.detail());
                if (bytes < 0) {
                    yield "detail contains an unpaired surrogate";
                } else if (bytes > MAX_TEXT_BYTES) {
                    yield "detail of " + bytes + " UTF-8 bytes exceeds the maximum of " + MAX_TEXT_BYTES;
                }
                yield null;
            }
            case Message.Goodbye g -> {
                if (g.reason() == null) {
                    yield "reason is null";
                } else if (g.detail() == null) {
                    yield "detail is null";
                }
                long bytes = utf8Length(g.detail());
                if (bytes < 0) {
                    yield "detail contains an unpaired surrogate";
                } else if (bytes > MAX_TEXT_BYTES) {
                    yield "detail of " + bytes + " UTF-8 bytes exceeds the maximum of " + MAX_TEXT_BYTES;
                }
                yield null;
            }
            case Message.Agree a -> {
                if (a.communicator() < 0) {
                    yield "communicator " + a.communicator() + " is negative";
                } else if (a.generation() < 0) {
                    yield "generation " + a.generation() + " is negative";
                } else if (a.kind() == null) {
                    yield "kind is null";
                }
                String p = setProblem("failed", a.failed());
                p = p != null ? p : setProblem("acceptedBallot", ballot(a));
                yield p != null ? p : setProblem("value", a.value());
            }
            case Message.Status st -> {
                if (st.waitingFor() == null) {
                    yield "waitingFor is null";
                } else if (st.text() == null) {
                    yield "text is null";
                } else if (!st.reply() && (st.waitingFor().length > 0 || !st.text().isEmpty())) {
                    yield "a question carries no ranks and no text";
                }
                String p = setProblem("waitingFor", st.waitingFor());
                if (p != null) {
                    yield p;
                }
                long bytes = utf8Length(st.text());
                if (bytes < 0) {
                    yield "text contains an unpaired surrogate";
                } else if (bytes > MAX_TEXT_BYTES) {
                    yield "text of " + bytes + " UTF-8 bytes exceeds the maximum of " + MAX_TEXT_BYTES;
                }
                yield null;
            }
            case Message.RpcRequest r -> {
                if (r.communicator() < 0) {
                    yield "communicator " + r.communicator() + " is negative";
                } else if (r.functionId() < 0) {
                    yield "functionId " + r.functionId() + " is negative";
                } else if (r.timeoutNanos() < 0) {
                    yield "timeoutNanos " + r.timeoutNanos() + " is negative";
                } else if (r.payload() == null) {
                    yield "payload is null";
                } else if (r.payload().byteSize() > MAX_FRAME_LENGTH - (RPC_REQUEST_PAYLOAD_OFFSET - LENGTH_PREFIX_BYTES)) {
                    yield "payload of " + r.payload().byteSize() + " bytes does not fit in one frame";
                }
                yield null;
            }
            case Message.RpcResponse r -> {
                if (r.status() == null) {
                    yield "status is null";
                } else if (r.payload() == null) {
                    yield "payload is null";
                } else if ((r.status() == RpcStatus.OK) != (r.code() == null)) {
                    yield r.status() == RpcStatus.OK ? "an OK response carries no error code"
                            : "a " + r.status() + " response needs an error code";
                } else if (r.status() != RpcStatus.OK && r.payload().byteSize() > 0) {
                    yield "a " + r.status() + " response carries no payload";
                } else if (r.status() == RpcStatus.OK && r.remoteClass() != null && r.detail() != null
                        && (!r.remoteClass().isEmpty() || !r.detail().isEmpty())) {
                    yield "an OK response carries no class or detail";
                } else if (r.status() != RpcStatus.FAILED && r.remoteClass() != null && !r.remoteClass().isEmpty()) {
                    yield "only a FAILED response names a class";
                }
                String p = textProblem("remoteClass", r.remoteClass());
                p = p != null ? p : textProblem("detail", r.detail());
                if (p == null && r.payload().byteSize() > MAX_FRAME_LENGTH - (RPC_RESPONSE_TEXT_OFFSET
                        - LENGTH_PREFIX_BYTES) - utf8Length(r.remoteClass()) - utf8Length(r.detail())) {
                    p = "payload of " + r.payload().byteSize() + " bytes does not fit in one frame";
                }
                yield p;
            }
            case Message.RpcCancel _ -> null;
            case Message.Relay r -> relayProblem(r);
            case Message.PeerDown d -> {
                if (d.rank() < 0) {
                    yield "rank " + d.rank() + " is negative";
                } else if (d.detail() == null) {
                    yield "detail is null";
                }
                long bytes = utf8Length(d.detail());
                yield bytes < 0 ? "detail contains an unpaired surrogate" : bytes > MAX_TEXT_BYTES
                        ? "detail of " + bytes + " UTF-8 bytes exceeds the maximum of " + MAX_TEXT_BYTES : null;
            }
            case EnrolmentMessage e -> EnrolmentCodec.problem(e);
        };
    }

    /** The UTF-8 size of {@code s}, or -1 if it has an unpaired surrogate (which UTF-8 cannot represent). */
    private static long utf8Length(String s) {
        long bytes = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (!Character.isSurrogate(c)) {
                bytes += 3;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
                    && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                return -1;
            }
        }
        return bytes;
    }

    private static String hex(int u8) {
        return String.format("0x%02x", u8);
    }
}
