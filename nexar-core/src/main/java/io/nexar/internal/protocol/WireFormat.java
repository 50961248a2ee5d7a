package io.nexar.internal.protocol;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Every constant of the nexar wire format: version, magic, byte order, field layouts, field offsets and size limits.
 * No other class hard-codes a wire number; docs/protocol.md describes the same bytes for humans.
 *
 * <p>Every frame is one length prefix followed by a two-byte header and a type-specific body. All integers are
 * little-endian and unaligned:
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |              length (u32 LE): bytes after this field          |  offset 0
 * +---------------+---------------+-------------------------------+
 * |  type (u8)    |  flags (u8)=0 |  body ...                     |  offset 4, 5, 6
 * +---------------+---------------+                               |
 * |                          ... body                             |
 * +---------------------------------------------------------------+
 * </pre>
 *
 * <p>Bodies, with offsets from the start of the frame (see {@link MessageCodec} for the validation rules):
 *
 * <pre>
 * HELLO (0x01)              DATA (0x10)                    HEARTBEAT (0x20)       GOODBYE (0x2F)
 *  6 u32 magic "NXAR"        6 i32 communicator             6 u64 sequence         6 u8  reason code
 * 10 u16 version            10 i32 tag                     14 i64 sentNanos        7 u16 detail length n
 * 12 i32 rank               14 u64 messageSeq              22 end                  9 n bytes UTF-8 detail
 * 16 i32 worldSize          22 u64 totalBytes                                    9+n end
 * 20 u64 incarnation        30 u64 offset
 * 28 end                    38 payload ... to end of frame
 *
 * COLLECTIVE (0x11)                       COLLECTIVE_ABORT (0x12)
 *  6 i32 communicator                      6 i32 communicator
 * 10 u64 opSeq                            10 u64 opSeq
 * 18 i32 step                             18 u8  reason code
 * 22 u8  operation    (fingerprint)       19 u8  field code (0 = none)
 * 23 u8  dataType     (fingerprint)       20 u16 detail length n
 * 24 u8  reduceOp     (fingerprint)       22 n bytes UTF-8 detail
 * 25 i32 root         (fingerprint)     22+n end
 * 29 i64 count        (fingerprint)
 * 37 u64 totalBytes
 * 45 u64 offset
 * 53 payload ... to end of frame
 *
 * RPC_REQUEST (0x30)             RPC_RESPONSE (0x31)                  RPC_CANCEL (0x32)
 *  6 i32 communicator             6 u64 requestId                       6 u64 requestId
 * 10 u64 requestId               14 u8  status                         14 end
 * 18 i32 functionId              15 u8  error code (0 when OK)
 * 22 i64 timeoutNanos            16 u16 class length c
 * 30 payload ... to end          18 u16 detail length d
 *                                20 c bytes UTF-8 class, d bytes UTF-8 detail
 *                              20+c+d payload ... to end of frame
 *
 * STATUS (0x21)
 *  6 u8  kind: 0 question, 1 answer
 *  7 u64 requestId
 * 15 u16 rank count k (0 in a question)
 * 17 u16 text length n (0 in a question)
 * 19 k i32 world ranks the answering rank waits for, then n bytes UTF-8 text
 * </pre>
 *
 * <p>The {@code length} field counts the bytes after it (type, flags and body), so a frame occupies
 * {@code LENGTH_PREFIX_BYTES + length} bytes. Receivers compare {@code length} with their configured maximum
 * <em>before</em> allocating anything for the frame.
 *
 * <p>This class holds only constants; it is thread-safe and cannot be instantiated.
 */
public final class WireFormat {

    /** The protocol version this node speaks; a Hello with any other version is refused. */
    public static final int VERSION = 6;

    /**
     * The first four body bytes of every Hello: the ASCII characters {@code N X A R} in wire order, which is
     * {@code 0x5241584E} when read as a little-endian u32 through {@link #INT_LE}.
     */
    public static final int MAGIC = 'N' | 'X' << 8 | 'A' << 16 | 'R' << 24;

    /** Byte order of every multi-byte field on the wire. */
    public static final ByteOrder BYTE_ORDER = ByteOrder.LITTLE_ENDIAN;

    /** A u8 field (type, flags, Goodbye reason). Read it with {@code & 0xFF}. */
    public static final ValueLayout.OfByte BYTE = ValueLayout.JAVA_BYTE;

    /** A 16-bit little-endian field, unaligned. Read unsigned values with {@code & 0xFFFF}. */
    public static final ValueLayout.OfShort SHORT_LE = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(BYTE_ORDER);

    /** A 32-bit little-endian field, unaligned. Read unsigned values with {@link Integer#toUnsignedLong}. */
    public static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(BYTE_ORDER);

    /** A 64-bit little-endian field, unaligned. */
    public static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(BYTE_ORDER);

    // ---------------------------------------------------------------- framing

    /** Size of the u32 length prefix that starts every frame. */
    public static final int LENGTH_PREFIX_BYTES = 4;

    /** Offset of the u8 message type code. */
    public static final int TYPE_OFFSET = 4;

    /** Offset of the u8 flags field; no flags are defined in version 1, so it must be 0. */
    public static final int FLAGS_OFFSET = 5;

    /** Bytes before the body: length prefix, type and flags. The body starts at this offset. */
    public static final int FRAME_HEADER_BYTES = 6;

    /** The smallest legal value of the length field: type and flags, with an empty body. */
    public static final long MIN_FRAME_LENGTH = FRAME_HEADER_BYTES - LENGTH_PREFIX_BYTES;

    /** The largest value the u32 length field can carry. */
    public static final long MAX_FRAME_LENGTH = 0xFFFF_FFFFL;

    /** The largest UTF-8 text field (Goodbye detail), in bytes. */
    public static final int MAX_TEXT_BYTES = 1024;

    // ---------------------------------------------------------------- HELLO, offsets from the frame start

    /** Hello: u32 {@link #MAGIC}. */
    public static final int HELLO_MAGIC_OFFSET = FRAME_HEADER_BYTES;
    /** Hello: u16 protocol version. */
    public static final int HELLO_VERSION_OFFSET = HELLO_MAGIC_OFFSET + 4;
    /** Hello: i32 sender rank. */
    public static final int HELLO_RANK_OFFSET = HELLO_VERSION_OFFSET + 2;
    /** Hello: i32 sender's world size. */
    public static final int HELLO_WORLD_SIZE_OFFSET = HELLO_RANK_OFFSET + 4;
    /** Hello: u64 incarnation. */
    public static final int HELLO_INCARNATION_OFFSET = HELLO_WORLD_SIZE_OFFSET + 4;
    /** Size of a whole Hello frame, length prefix included (28). */
    public static final int HELLO_FRAME_BYTES = HELLO_INCARNATION_OFFSET + 8;

    // ---------------------------------------------------------------- DATA

    /** Data: i32 communicator id. */
    public static final int DATA_COMMUNICATOR_OFFSET = FRAME_HEADER_BYTES;
    /** Data: i32 tag. */
    public static final int DATA_TAG_OFFSET = DATA_COMMUNICATOR_OFFSET + 4;
    /** Data: u64 message sequence number. */
    public static final int DATA_MESSAGE_SEQ_OFFSET = DATA_TAG_OFFSET + 4;
    /** Data: u64 size of the whole message. */
    public static final int DATA_TOTAL_BYTES_OFFSET = DATA_MESSAGE_SEQ_OFFSET + 8;
    /** Data: u64 offset of this chunk in the message. */
    public static final int DATA_OFFSET_OFFSET = DATA_TOTAL_BYTES_OFFSET + 8;
    /** Data: the payload, which runs to the end of the frame. */
    public static final int DATA_PAYLOAD_OFFSET = DATA_OFFSET_OFFSET + 8;

    /**
     * Total framing overhead of a Data frame, length prefix included (38): a chunk of {@code n} payload bytes
     * occupies {@code DATA_HEADER_BYTES + n} bytes on the wire, and its length field is
     * {@code DATA_HEADER_BYTES - LENGTH_PREFIX_BYTES + n}. Use it to size chunks against a frame maximum.
     */
    public static final int DATA_HEADER_BYTES = DATA_PAYLOAD_OFFSET;

    /** The largest payload one Data frame can carry, limited by the u32 length field. */
    public static final long MAX_DATA_PAYLOAD_BYTES = MAX_FRAME_LENGTH - (DATA_HEADER_BYTES - LENGTH_PREFIX_BYTES);

    // ---------------------------------------------------------------- HEARTBEAT

    /** Heartbeat: u64 sequence. */
    public static final int HEARTBEAT_SEQUENCE_OFFSET = FRAME_HEADER_BYTES;
    /** Heartbeat: i64 sender's monotonic clock in nanoseconds. */
    public static final int HEARTBEAT_SENT_NANOS_OFFSET = HEARTBEAT_SEQUENCE_OFFSET + 8;
    /** Size of a whole Heartbeat frame, length prefix included (22). */
    public static final int HEARTBEAT_FRAME_BYTES = HEARTBEAT_SENT_NANOS_OFFSET + 8;

    // ---------------------------------------------------------------- GOODBYE

    /** Goodbye: u8 {@link GoodbyeReason} code. */
    public static final int GOODBYE_REASON_OFFSET = FRAME_HEADER_BYTES;
    /** Goodbye: u16 length of the UTF-8 detail, at most {@link #MAX_TEXT_BYTES}. */
    public static final int GOODBYE_DETAIL_LENGTH_OFFSET = GOODBYE_REASON_OFFSET + 1;
    /** Goodbye: the UTF-8 detail, which must end exactly at the end of the frame. */
    public static final int GOODBYE_DETAIL_OFFSET = GOODBYE_DETAIL_LENGTH_OFFSET + 2;

    // ---------------------------------------------------------------- COLLECTIVE (0x11)

    /** Collective: i32 communicator id. */
    public static final int COLLECTIVE_COMMUNICATOR_OFFSET = FRAME_HEADER_BYTES;
    /** Collective: u64 operation sequence number on the communicator. */
    public static final int COLLECTIVE_OP_SEQ_OFFSET = COLLECTIVE_COMMUNICATOR_OFFSET + 4;
    /** Collective: i32 schedule step (round) of the operation. */
    public static final int COLLECTIVE_STEP_OFFSET = COLLECTIVE_OP_SEQ_OFFSET + 8;
    /** Collective: u8 operation code (fingerprint). */
    public static final int COLLECTIVE_OPERATION_OFFSET = COLLECTIVE_STEP_OFFSET + 4;
    /** Collective: u8 data type code (fingerprint). */
    public static final int COLLECTIVE_DATA_TYPE_OFFSET = COLLECTIVE_OPERATION_OFFSET + 1;
    /** Collective: u8 reduce operator code (fingerprint). */
    public static final int COLLECTIVE_REDUCE_OP_OFFSET = COLLECTIVE_DATA_TYPE_OFFSET + 1;
    /** Collective: i32 root rank, -1 for rootless operations (fingerprint). */
    public static final int COLLECTIVE_ROOT_OFFSET = COLLECTIVE_REDUCE_OP_OFFSET + 1;
    /** Collective: i64 element count every rank agrees on, -1 when not checked (fingerprint). */
    public static final int COLLECTIVE_COUNT_OFFSET = COLLECTIVE_ROOT_OFFSET + 4;
    /** Collective: u64 size of the step's whole message. */
    public static final int COLLECTIVE_TOTAL_BYTES_OFFSET = COLLECTIVE_COUNT_OFFSET + 8;
    /** Collective: u64 offset of this chunk in the step's message. */
    public static final int COLLECTIVE_CHUNK_OFFSET_OFFSET = COLLECTIVE_TOTAL_BYTES_OFFSET + 8;
    /** Collective: the payload, which runs to the end of the frame. */
    public static final int COLLECTIVE_PAYLOAD_OFFSET = COLLECTIVE_CHUNK_OFFSET_OFFSET + 8;
    /** Total framing overhead of a Collective frame, length prefix included (53). */
    public static final int COLLECTIVE_HEADER_BYTES = COLLECTIVE_PAYLOAD_OFFSET;
    /** The largest payload one Collective frame can carry, limited by the u32 length field. */
    public static final long MAX_COLLECTIVE_PAYLOAD_BYTES =
            MAX_FRAME_LENGTH - (COLLECTIVE_HEADER_BYTES - LENGTH_PREFIX_BYTES);

    // ---------------------------------------------------------------- COLLECTIVE_ABORT (0x12)

    /** Collective abort: i32 communicator id. */
    public static final int ABORT_COMMUNICATOR_OFFSET = FRAME_HEADER_BYTES;
    /** Collective abort: u64 sequence number of the failed operation. */
    public static final int ABORT_OP_SEQ_OFFSET = ABORT_COMMUNICATOR_OFFSET + 4;
    /** Collective abort: u8 {@link AbortReason} code. */
    public static final int ABORT_REASON_OFFSET = ABORT_OP_SEQ_OFFSET + 8;
    /** Collective abort: u8 code of the fingerprint field that differed, 0 if none. */
    public static final int ABORT_FIELD_OFFSET = ABORT_REASON_OFFSET + 1;
    /** COLLECTIVE_ABORT: offset of the culprit (i32: world rank of the rank whose failure caused it, or -1). */
    public static final int ABORT_CULPRIT_OFFSET = ABORT_FIELD_OFFSET + 1;
    /** Collective abort: u16 length of the UTF-8 detail, at most {@link #MAX_TEXT_BYTES}. */
    public static final int ABORT_DETAIL_LENGTH_OFFSET = ABORT_CULPRIT_OFFSET + 4;
    /** Collective abort: the UTF-8 detail, which must end exactly at the end of the frame. */
    public static final int ABORT_DETAIL_OFFSET = ABORT_DETAIL_LENGTH_OFFSET + 2;

    private WireFormat() {
    }

    /** AGREE: offset of the communicator id (i32). */
    public static final int AGREE_COMMUNICATOR_OFFSET = FRAME_HEADER_BYTES;
    /** AGREE: offset of the generation (i32). */
    public static final int AGREE_GENERATION_OFFSET = AGREE_COMMUNICATOR_OFFSET + 4;
    /** AGREE: offset of the kind (u8). */
    public static final int AGREE_KIND_OFFSET = AGREE_GENERATION_OFFSET + 4;
    /** AGREE: offset of the has-accepted flag (u8, 0 or 1). */
    public static final int AGREE_HAS_ACCEPTED_OFFSET = AGREE_KIND_OFFSET + 1;
    /** AGREE: offset of the three set sizes (u16 each: failed, accepted ballot, value). */
    public static final int AGREE_COUNTS_OFFSET = AGREE_HAS_ACCEPTED_OFFSET + 1;
    /** AGREE: offset of the ranks (i32 each), the three sets one after the other. */
    public static final int AGREE_RANKS_OFFSET = AGREE_COUNTS_OFFSET + 6;
    // ---------------------------------------------------------------- STATUS

    /** STATUS: offset of the kind (u8: 0 question, 1 answer). */
    public static final int STATUS_KIND_OFFSET = FRAME_HEADER_BYTES;
    /** STATUS: offset of the request id (u64). */
    public static final int STATUS_REQUEST_OFFSET = STATUS_KIND_OFFSET + 1;
    /** STATUS: offset of the number of ranks (u16). */
    public static final int STATUS_RANK_COUNT_OFFSET = STATUS_REQUEST_OFFSET + 8;
    /** STATUS: offset of the text length (u16, at most {@link #MAX_TEXT_BYTES}). */
    public static final int STATUS_TEXT_LENGTH_OFFSET = STATUS_RANK_COUNT_OFFSET + 2;
    /** STATUS: offset of the ranks (i32 each), followed by the text. */
    public static final int STATUS_RANKS_OFFSET = STATUS_TEXT_LENGTH_OFFSET + 2;
    /** STATUS: most ranks in an answer. */
    public static final int STATUS_MAX_RANKS = 0xFFFF;

    /** AGREE: most ranks in one set. */
    public static final int AGREE_MAX_SET = 0xFFFF;

    // ---------------------------------------------------------------- RPC_REQUEST (0x30)

    /** RPC request: i32 communicator id. */
    public static final int RPC_REQUEST_COMMUNICATOR_OFFSET = FRAME_HEADER_BYTES;
    /** RPC request: u64 request id. */
    public static final int RPC_REQUEST_ID_OFFSET = RPC_REQUEST_COMMUNICATOR_OFFSET + 4;
    /** RPC request: i32 function id. */
    public static final int RPC_REQUEST_FUNCTION_OFFSET = RPC_REQUEST_ID_OFFSET + 8;
    /** RPC request: i64 nanoseconds left of the caller's deadline. */
    public static final int RPC_REQUEST_TIMEOUT_OFFSET = RPC_REQUEST_FUNCTION_OFFSET + 4;
    /** RPC request: the payload, which runs to the end of the frame; also the request's framing overhead (30). */
    public static final int RPC_REQUEST_PAYLOAD_OFFSET = RPC_REQUEST_TIMEOUT_OFFSET + 8;

    // ---------------------------------------------------------------- RPC_RESPONSE (0x31)

    /** RPC response: u64 request id. */
    public static final int RPC_RESPONSE_ID_OFFSET = FRAME_HEADER_BYTES;
    /** RPC response: u8 {@link RpcStatus} code. */
    public static final int RPC_RESPONSE_STATUS_OFFSET = RPC_RESPONSE_ID_OFFSET + 8;
    /** RPC response: u8 error code ({@link RpcStatus#wireCode}), 0 when the status is OK. */
    public static final int RPC_RESPONSE_CODE_OFFSET = RPC_RESPONSE_STATUS_OFFSET + 1;
    /** RPC response: u16 length of the UTF-8 class name. */
    public static final int RPC_RESPONSE_CLASS_LENGTH_OFFSET = RPC_RESPONSE_CODE_OFFSET + 1;
    /** RPC response: u16 length of the UTF-8 detail. */
    public static final int RPC_RESPONSE_DETAIL_LENGTH_OFFSET = RPC_RESPONSE_CLASS_LENGTH_OFFSET + 2;
    /** RPC response: the class name, then the detail, then the payload to the end of the frame. */
    public static final int RPC_RESPONSE_TEXT_OFFSET = RPC_RESPONSE_DETAIL_LENGTH_OFFSET + 2;

    // ---------------------------------------------------------------- RPC_CANCEL (0x32)

    /** RPC cancel: u64 request id. */
    public static final int RPC_CANCEL_ID_OFFSET = FRAME_HEADER_BYTES;
    /** Size of a whole RPC cancel frame, length prefix included (14). */
    public static final int RPC_CANCEL_FRAME_BYTES = RPC_CANCEL_ID_OFFSET + 8;

    // ---------------------------------------------------------------- RELAY (0x14)

    /** Relay: i32 world rank of the frame's origin (the rank that sent the inner frame). */
    public static final int RELAY_ORIGIN_OFFSET = FRAME_HEADER_BYTES;
    /** Relay: i32 world rank of the final destination. */
    public static final int RELAY_DESTINATION_OFFSET = RELAY_ORIGIN_OFFSET + 4;
    /** Relay: u8 hops taken so far (1 on the first link). */
    public static final int RELAY_HOPS_OFFSET = RELAY_DESTINATION_OFFSET + 4;
    /** Relay: u8 most hops allowed; a relay drops a frame (and blames its sender) that would exceed it. */
    public static final int RELAY_HOP_LIMIT_OFFSET = RELAY_HOPS_OFFSET + 1;
    /** Relay: u16 reserved, 0. */
    public static final int RELAY_RESERVED_OFFSET = RELAY_HOP_LIMIT_OFFSET + 1;
    /** Relay: the inner frame, whole (its own length prefix included), to the end of the frame. */
    public static final int RELAY_FRAME_OFFSET = RELAY_RESERVED_OFFSET + 2;
    /**
     * Bytes a relay envelope adds to the frame it carries (18): a relayed frame must be at most
     * {@code max.frame.size} minus this.
     */
    public static final int RELAY_ENVELOPE_BYTES = RELAY_FRAME_OFFSET;

    // ---------------------------------------------------------------- PEER_DOWN (0x15)

    /** Peer down: i32 world rank the sender lost. */
    public static final int PEER_DOWN_RANK_OFFSET = FRAME_HEADER_BYTES;
    /** Peer down: u16 length of the UTF-8 detail. */
    public static final int PEER_DOWN_DETAIL_LENGTH_OFFSET = PEER_DOWN_RANK_OFFSET + 4;
    /** Peer down: the detail (why, as the sender saw it), to the end of the frame. */
    public static final int PEER_DOWN_DETAIL_OFFSET = PEER_DOWN_DETAIL_LENGTH_OFFSET + 2;

    // ---------------------------------------------------------------- QUIESCE (0x16)

    /** Quiesce: u8 phase, {@link #QUIESCE_CLOSED} or {@link #QUIESCE_RELEASE}. */
    public static final int QUIESCE_PHASE_OFFSET = FRAME_HEADER_BYTES;
    /** Size of a whole QUIESCE frame. */
    public static final int QUIESCE_FRAME_BYTES = QUIESCE_PHASE_OFFSET + 1;
    /** Quiesce phase: the sender and every rank below it in the close tree closed (to the parent). */
    public static final int QUIESCE_CLOSED = 1;
    /** Quiesce phase: every rank closed; stop relaying (to the children). */
    public static final int QUIESCE_RELEASE = 2;
}
