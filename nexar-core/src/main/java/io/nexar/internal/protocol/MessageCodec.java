package io.nexar.internal.protocol;

import static io.nexar.internal.protocol.WireFormat.*;

import io.nexar.ErrorContext;
import io.nexar.Operation;
import io.nexar.ProtocolException;
import java.lang.foreign.MemorySegment;
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
 * QUIESCE          | phase u8 (1 closed, 2 release) |
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
 *
 * <p>This class frames every message, codes the smallest bodies (RPC_CANCEL, QUIESCE) inline and holds the decode
 * error helpers the family codecs share; the bodies of the families are coded by {@link DataPathCodec} (HELLO, DATA,
 * HEARTBEAT), {@link CollectiveCodec} (COLLECTIVE), {@link ControlCodec} (GOODBYE,
 * COLLECTIVE_ABORT, AGREE, STATUS), {@link RpcFrameCodec} (RPC_*), {@link RelayCodec} (RELAY, PEER_DOWN) and
 * {@link EnrolmentCodec} (JOIN_*, PEER_TABLE and the other enrolment messages), which this class dispatches to by
 * type; {@link WireText} codes and checks the text fields.
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
            case Message.Goodbye g -> ControlCodec.size(g);
            case Message.Collective c -> COLLECTIVE_HEADER_BYTES + c.payload().byteSize();
            case Message.CollectiveAbort a -> ControlCodec.size(a);
            case Message.Agree a -> ControlCodec.size(a);
            case Message.Status st -> ControlCodec.size(st);
            case Message.RpcRequest r -> RpcFrameCodec.size(r);
            case Message.RpcResponse r -> RpcFrameCodec.size(r);
            case Message.RpcCancel _ -> RPC_CANCEL_FRAME_BYTES;
            case Message.Relay r -> RelayCodec.size(r);
            case Message.PeerDown d -> RelayCodec.size(d);
            case Message.Quiesce _ -> QUIESCE_FRAME_BYTES;
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
            case Message.Hello h -> DataPathCodec.encode(h, dst);
            case Message.Data d -> DataPathCodec.encode(d, dst, withPayload);
            case Message.Heartbeat hb -> DataPathCodec.encode(hb, dst);
            case Message.Goodbye g -> ControlCodec.encode(g, dst);
            case Message.Collective c -> CollectiveCodec.encode(c, dst, withPayload);
            case Message.CollectiveAbort a -> ControlCodec.encode(a, dst);
            case Message.Agree a -> ControlCodec.encode(a, dst);
            case Message.Status st -> ControlCodec.encode(st, dst);
            case Message.RpcRequest r -> RpcFrameCodec.encode(r, dst);
            case Message.RpcResponse r -> RpcFrameCodec.encode(r, dst);
            case Message.RpcCancel c -> dst.set(LONG_LE, RPC_CANCEL_ID_OFFSET, c.requestId());
            case Message.Relay r -> RelayCodec.encode(r, dst);
            case Message.PeerDown d -> RelayCodec.encode(d, dst);
            case Message.Quiesce q -> dst.set(BYTE, QUIESCE_PHASE_OFFSET,
                    (byte) (q.release() ? QUIESCE_RELEASE : QUIESCE_CLOSED));
            case EnrolmentMessage e -> EnrolmentCodec.encodeBody(e, dst);
        }
        return written;
    }

    /**
     * The header of a COLLECTIVE frame whose payload has not been read yet, with an empty payload; null if
     * {@code header} (the frame's first {@link WireFormat#COLLECTIVE_PAYLOAD_OFFSET} bytes, length prefix included)
     * is not a COLLECTIVE frame's with flags 0. The header's fields take any value (as in {@link #decode}), so this
     * never fails; the length prefix was checked by the reader.
     */
    public static Message.Collective collectiveHeader(MemorySegment header) {
        if (header.byteSize() < COLLECTIVE_PAYLOAD_OFFSET
                || (header.get(BYTE, TYPE_OFFSET) & 0xFF) != MessageType.COLLECTIVE.code()
                || header.get(BYTE, FLAGS_OFFSET) != 0) {
            return null;
        }
        return CollectiveCodec.decode(header, MemorySegment.NULL);
    }

    /**
     * The header of a DATA frame whose payload of {@code payloadBytes} has not been read yet, with an empty payload;
     * null if {@code header} (the frame's first {@link WireFormat#DATA_PAYLOAD_OFFSET} bytes, length prefix included)
     * is not a DATA frame's with flags 0, or if the whole frame would break a rule of {@link #decode} (which then
     * reports it). Never fails; the length prefix was checked by the reader.
     *
     * @param header the frame's first bytes
     * @param payloadBytes the size of the payload that follows the header
     * @return the header, or null
     */
    public static Message.Data dataHeader(MemorySegment header, long payloadBytes) {
        if (header.byteSize() < DATA_PAYLOAD_OFFSET
                || (header.get(BYTE, TYPE_OFFSET) & 0xFF) != MessageType.DATA.code()
                || header.get(BYTE, FLAGS_OFFSET) != 0 || payloadBytes > MAX_DATA_PAYLOAD_BYTES) {
            return null;
        }
        var d = new Message.Data(header.get(INT_LE, DATA_COMMUNICATOR_OFFSET), header.get(INT_LE, DATA_TAG_OFFSET),
                header.get(LONG_LE, DATA_MESSAGE_SEQ_OFFSET), header.get(LONG_LE, DATA_TOTAL_BYTES_OFFSET),
                header.get(LONG_LE, DATA_OFFSET_OFFSET), MemorySegment.NULL);
        return problem(d) != null || d.offset() > d.totalBytes() - payloadBytes ? null : d;
    }

    /**
     * Decodes the frame of {@code frameBytes} bytes at the start of {@code memory} as {@link #decode} does, except
     * that a COLLECTIVE frame is decoded into {@code into} (refilled, its payload a view of {@code memory}) rather
     * than into a new message: what a reader that owns {@code into} does per frame, so that a collective chunk
     * costs no message of its own (see {@link Message.Collective}).
     *
     * @param peer the rank the bytes came from, named in error messages ({@code -1} if not yet known)
     * @param memory the frame's memory, at least {@code frameBytes} long
     * @param frameBytes the frame's size, length prefix included
     * @param maxFrameBytes the largest accepted value of the length field
     * @param into the message a COLLECTIVE frame is decoded into
     * @return the message: {@code into} for a COLLECTIVE frame
     * @throws ProtocolException if the bytes break any rule; never any other exception for any content
     */
    public static Message decode(int peer, MemorySegment memory, long frameBytes, long maxFrameBytes,
                                 Message.Collective into) {
        if (frameBytes <= TYPE_OFFSET || (memory.get(BYTE, TYPE_OFFSET) & 0xFF) != MessageType.COLLECTIVE.code()) {
            return decode(peer, memory.asSlice(0, frameBytes), maxFrameBytes);
        }
        MessageType type = checkedType(peer, memory, frameBytes, maxFrameBytes);
        requireSize(peer, type, frameBytes, COLLECTIVE_PAYLOAD_OFFSET, false);
        CollectiveCodec.decodeInto(memory, frameBytes, into);
        refuseIfInvalid(peer, type, CollectiveCodec.problem(into));
        return into;
    }

    /**
     * The type of the frame of {@code size} bytes at the start of {@code frame}, after the checks every frame passes
     * (length prefix, known type, flags).
     */
    private static MessageType checkedType(int peer, MemorySegment frame, long size, long maxFrameBytes) {
        checkMaxFrameBytes(maxFrameBytes);
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
        return type;
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
        MessageType type = checkedType(peer, frame, frame.byteSize(), maxFrameBytes);
        Message m = switch (type) {
            case HELLO -> DataPathCodec.decodeHello(peer, frame);
            case DATA -> DataPathCodec.decodeData(peer, frame);
            case HEARTBEAT -> DataPathCodec.decodeHeartbeat(peer, frame);
            case GOODBYE -> ControlCodec.decodeGoodbye(peer, frame);
            case COLLECTIVE -> {
                requireSize(peer, type, frame, COLLECTIVE_PAYLOAD_OFFSET, false);
                yield CollectiveCodec.decode(frame, frame.asSlice(COLLECTIVE_PAYLOAD_OFFSET));
            }
            case COLLECTIVE_ABORT -> ControlCodec.decodeAbort(peer, frame);
            case AGREE -> ControlCodec.decodeAgree(peer, frame);
            case STATUS -> ControlCodec.decodeStatus(peer, frame);
            case RPC_REQUEST -> RpcFrameCodec.decodeRequest(peer, frame);
            case RPC_RESPONSE -> RpcFrameCodec.decodeResponse(peer, frame);
            case RPC_CANCEL -> RpcFrameCodec.decodeCancel(peer, frame);
            case PEER_DOWN -> RelayCodec.decodePeerDown(peer, frame);
            case RELAY -> RelayCodec.decodeRelay(peer, frame);
            case QUIESCE -> {
                requireSize(peer, type, frame, QUIESCE_FRAME_BYTES, true);
                int phase = frame.get(BYTE, QUIESCE_PHASE_OFFSET) & 0xFF;
                if (phase != QUIESCE_CLOSED && phase != QUIESCE_RELEASE) {
                    throw error(peer, "invalid QUIESCE from " + source(peer) + ": phase " + hex(phase)
                            + " is neither " + QUIESCE_CLOSED + " (closed) nor " + QUIESCE_RELEASE + " (release)");
                }
                yield new Message.Quiesce(phase == QUIESCE_RELEASE);
            }
            case JOIN_CHALLENGE, JOIN_REQUEST, JOIN_ACCEPTED, JOIN_REFUSED, PEER_TABLE, ELASTIC_JOIN_REQUEST,
                 GROW_POLL, ADMISSION, SEED_PROOF, RENEW_REQUEST, RENEWED ->
                    EnrolmentCodec.decode(peer, type, frame);
        };
        refuseIfInvalid(peer, type, problem(m));
        return m;
    }

    /** Throws, naming the peer, if a decoded message's fields have a {@code problem} (null: none). */
    static void refuseIfInvalid(int peer, MessageType type, String problem) {
        if (problem != null) {
            throw error(peer, "invalid " + type + " from " + source(peer) + ": " + problem);
        }
    }

    // ------------------------------------------ package-private helpers for FrameDecoder and the family codecs

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

    /**
     * A decode error as the receiving end reports it: the codec knows only the peer, so the transport that read the
     * frame adds its own rank and world size (the detail, the cause and the stack stay).
     *
     * @param e an error raised while decoding a peer's bytes
     * @param rank the local rank
     * @param worldSize the local world size
     * @return {@code e} itself if it names a local rank already (or {@code rank} is unknown), else a copy naming it
     */
    public static ProtocolException seenBy(ProtocolException e, int rank, int worldSize) {
        ErrorContext c = e.context();
        String prefix = c.describe() + " "; // a NexarException's message is its context's prefix, a space, the detail
        if (c.rank() >= 0 || rank < 0 || e.getMessage() == null || !e.getMessage().startsWith(prefix)) {
            return e;
        }
        var seen = new ProtocolException(new ErrorContext(c.operation(), rank, worldSize, c.communicator(),
                c.sequence(), c.tag(), c.peer()), e.getMessage().substring(prefix.length()), e.getCause());
        seen.setStackTrace(e.getStackTrace());
        return seen;
    }

    /** Requires the frame to be exactly (or, if not {@code exact}, at least) {@code bytes} long. */
    static void requireSize(int peer, MessageType type, MemorySegment frame, long bytes, boolean exact) {
        requireSize(peer, type, frame.byteSize(), bytes, exact);
    }

    /** Requires a frame of {@code size} bytes to be exactly (or, if not {@code exact}, at least) {@code bytes} long. */
    static void requireSize(int peer, MessageType type, long size, long bytes, boolean exact) {
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
            case Message.Hello h -> DataPathCodec.problem(h);
            case Message.Data d -> DataPathCodec.problem(d);
            case Message.Heartbeat _ -> null;
            case Message.Collective c -> CollectiveCodec.problem(c);
            case Message.CollectiveAbort a -> ControlCodec.problem(a);
            case Message.Goodbye g -> ControlCodec.problem(g);
            case Message.Agree a -> ControlCodec.problem(a);
            case Message.Status st -> ControlCodec.problem(st);
            case Message.RpcRequest r -> RpcFrameCodec.problem(r);
            case Message.RpcResponse r -> RpcFrameCodec.problem(r);
            case Message.RpcCancel _ -> null;
            case Message.Relay r -> RelayCodec.problem(r);
            case Message.PeerDown d -> RelayCodec.problem(d);
            case Message.Quiesce _ -> null;
            case EnrolmentMessage e -> EnrolmentCodec.problem(e);
        };
    }

    static String hex(int u8) {
        return String.format("0x%02x", u8);
    }
}
