package io.nexar.internal.protocol;

import static io.nexar.internal.protocol.MessageCodec.error;
import static io.nexar.internal.protocol.MessageCodec.hex;
import static io.nexar.internal.protocol.MessageCodec.requireSize;
import static io.nexar.internal.protocol.MessageCodec.source;
import static io.nexar.internal.protocol.WireFormat.*;
import static io.nexar.internal.protocol.WireText.textProblem;
import static io.nexar.internal.protocol.WireText.utf8;
import static io.nexar.internal.protocol.WireText.utf8Length;

import io.nexar.ErrorCode;
import io.nexar.internal.util.Segments;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * The bodies of the RPC frames: RPC_REQUEST, RPC_RESPONSE and RPC_CANCEL (layouts in {@link MessageCodec}).
 * {@link MessageCodec} writes and checks the frame header and dispatches here by type; each message has its size,
 * its body encoder, its decoder and its field rules. Stateless.
 */
final class RpcFrameCodec {
    private RpcFrameCodec() {
    }

    static long size(Message.RpcRequest r) {
        return RPC_REQUEST_PAYLOAD_OFFSET + r.payload().byteSize();
    }

    static long size(Message.RpcResponse r) {
        return RPC_RESPONSE_TEXT_OFFSET + utf8Length(r.remoteClass()) + utf8Length(r.detail())
                + r.payload().byteSize();
    }

    static void encode(Message.RpcRequest r, MemorySegment dst) {
        dst.set(INT_LE, RPC_REQUEST_COMMUNICATOR_OFFSET, r.communicator());
        dst.set(LONG_LE, RPC_REQUEST_ID_OFFSET, r.requestId());
        dst.set(INT_LE, RPC_REQUEST_FUNCTION_OFFSET, r.functionId());
        dst.set(LONG_LE, RPC_REQUEST_TIMEOUT_OFFSET, r.timeoutNanos());
        Segments.copy(r.payload(), 0, dst, RPC_REQUEST_PAYLOAD_OFFSET, r.payload().byteSize());
    }

    static void encode(Message.RpcResponse r, MemorySegment dst) {
        byte[] cls = r.remoteClass().getBytes(StandardCharsets.UTF_8); // well-formed: checked by encodedSize
        byte[] detail = r.detail().getBytes(StandardCharsets.UTF_8);
        dst.set(LONG_LE, RPC_RESPONSE_ID_OFFSET, r.requestId());
        dst.set(BYTE, RPC_RESPONSE_STATUS_OFFSET, (byte) r.status().code());
        dst.set(BYTE, RPC_RESPONSE_CODE_OFFSET, (byte) (r.code() == null ? 0 : RpcStatus.wireCode(r.code())));
        dst.set(SHORT_LE, RPC_RESPONSE_CLASS_LENGTH_OFFSET, (short) cls.length);
        dst.set(SHORT_LE, RPC_RESPONSE_DETAIL_LENGTH_OFFSET, (short) detail.length);
        MemorySegment.copy(cls, 0, dst, BYTE, RPC_RESPONSE_TEXT_OFFSET, cls.length);
        MemorySegment.copy(detail, 0, dst, BYTE, RPC_RESPONSE_TEXT_OFFSET + cls.length, detail.length);
        Segments.copy(r.payload(), 0, dst, RPC_RESPONSE_TEXT_OFFSET + cls.length + detail.length,
                r.payload().byteSize());
    }

    static Message.RpcRequest decodeRequest(int peer, MemorySegment frame) {
        requireSize(peer, MessageType.RPC_REQUEST, frame, RPC_REQUEST_PAYLOAD_OFFSET, false);
        return new Message.RpcRequest(frame.get(INT_LE, RPC_REQUEST_COMMUNICATOR_OFFSET),
                frame.get(LONG_LE, RPC_REQUEST_ID_OFFSET), frame.get(INT_LE, RPC_REQUEST_FUNCTION_OFFSET),
                frame.get(LONG_LE, RPC_REQUEST_TIMEOUT_OFFSET), frame.asSlice(RPC_REQUEST_PAYLOAD_OFFSET));
    }

    static Message.RpcResponse decodeResponse(int peer, MemorySegment frame) {
        requireSize(peer, MessageType.RPC_RESPONSE, frame, RPC_RESPONSE_TEXT_OFFSET, false);
        int statusCode = frame.get(BYTE, RPC_RESPONSE_STATUS_OFFSET) & 0xFF;
        RpcStatus status = RpcStatus.fromCode(statusCode);
        if (status == null) {
            throw error(peer, "unknown RPC_RESPONSE status " + hex(statusCode) + " from " + source(peer));
        }
        int wireCode = frame.get(BYTE, RPC_RESPONSE_CODE_OFFSET) & 0xFF;
        ErrorCode code = wireCode == 0 ? null : RpcStatus.errorCode(wireCode);
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
        String remoteClass = utf8(peer, "RPC_RESPONSE text", frame, RPC_RESPONSE_TEXT_OFFSET, classBytes);
        String detail = utf8(peer, "RPC_RESPONSE text", frame, RPC_RESPONSE_TEXT_OFFSET + classBytes, detailBytes);
        return new Message.RpcResponse(frame.get(LONG_LE, RPC_RESPONSE_ID_OFFSET), status, code, remoteClass, detail,
                frame.asSlice(payloadAt));
    }

    static Message.RpcCancel decodeCancel(int peer, MemorySegment frame) {
        requireSize(peer, MessageType.RPC_CANCEL, frame, RPC_CANCEL_FRAME_BYTES, true);
        return new Message.RpcCancel(frame.get(LONG_LE, RPC_CANCEL_ID_OFFSET));
    }

    static String problem(Message.RpcRequest r) {
        if (r.communicator() < 0) {
            return "communicator " + r.communicator() + " is negative";
        } else if (r.functionId() < 0) {
            return "functionId " + r.functionId() + " is negative";
        } else if (r.timeoutNanos() < 0) {
            return "timeoutNanos " + r.timeoutNanos() + " is negative";
        } else if (r.payload() == null) {
            return "payload is null";
        } else if (r.payload().byteSize() > MAX_FRAME_LENGTH - (RPC_REQUEST_PAYLOAD_OFFSET - LENGTH_PREFIX_BYTES)) {
            return "payload of " + r.payload().byteSize() + " bytes does not fit in one frame";
        }
        return null;
    }

    static String problem(Message.RpcResponse r) {
        if (r.status() == null) {
            return "status is null";
        } else if (r.payload() == null) {
            return "payload is null";
        } else if ((r.status() == RpcStatus.OK) != (r.code() == null)) {
            return r.status() == RpcStatus.OK ? "an OK response carries no error code"
                    : "a " + r.status() + " response needs an error code";
        } else if (r.status() != RpcStatus.OK && r.payload().byteSize() > 0) {
            return "a " + r.status() + " response carries no payload";
        } else if (r.status() == RpcStatus.OK && r.remoteClass() != null && r.detail() != null
                && (!r.remoteClass().isEmpty() || !r.detail().isEmpty())) {
            return "an OK response carries no class or detail";
        } else if (r.status() != RpcStatus.FAILED && r.remoteClass() != null && !r.remoteClass().isEmpty()) {
            return "only a FAILED response names a class";
        }
        String p = textProblem("remoteClass", r.remoteClass());
        p = p != null ? p : textProblem("detail", r.detail());
        if (p == null && r.payload().byteSize() > MAX_FRAME_LENGTH - (RPC_RESPONSE_TEXT_OFFSET
                - LENGTH_PREFIX_BYTES) - utf8Length(r.remoteClass()) - utf8Length(r.detail())) {
            p = "payload of " + r.payload().byteSize() + " bytes does not fit in one frame";
        }
        return p;
    }
}
