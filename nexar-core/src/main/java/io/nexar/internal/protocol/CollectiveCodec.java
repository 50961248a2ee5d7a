package io.nexar.internal.protocol;

import static io.nexar.internal.protocol.WireFormat.*;

import io.nexar.internal.util.Segments;
import java.lang.foreign.MemorySegment;

/**
 * The body of a COLLECTIVE frame (layout in {@link MessageCodec}): its encoder, its decoder (also for a header whose
 * payload has not been read yet, {@link MessageCodec#collectiveHeader}) and its field rules. {@link MessageCodec}
 * writes and checks the frame header and the size, and dispatches here. Stateless.
 */
final class CollectiveCodec {
    private CollectiveCodec() {
    }

    /** Writes {@code c}'s body into {@code dst}, its payload too if {@code withPayload}. */
    static void encode(Message.Collective c, MemorySegment dst, boolean withPayload) {
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
            Segments.copy(c.payload(), 0, dst, COLLECTIVE_PAYLOAD_OFFSET, c.payload().byteSize());
        }
    }

    /** The message whose header is in {@code frame} (any values), with {@code payload}; never fails. */
    static Message.Collective decode(MemorySegment frame, MemorySegment payload) {
        return decode(frame, payload, new Message.Collective());
    }

    /** As {@link #decode(MemorySegment, MemorySegment)}, into {@code into} (refilled and returned). */
    static Message.Collective decode(MemorySegment frame, MemorySegment payload, Message.Collective into) {
        return into.set(frame.get(INT_LE, COLLECTIVE_COMMUNICATOR_OFFSET),
                frame.get(LONG_LE, COLLECTIVE_OP_SEQ_OFFSET), frame.get(INT_LE, COLLECTIVE_STEP_OFFSET),
                frame.get(BYTE, COLLECTIVE_OPERATION_OFFSET) & 0xFF,
                frame.get(BYTE, COLLECTIVE_DATA_TYPE_OFFSET) & 0xFF,
                frame.get(BYTE, COLLECTIVE_REDUCE_OP_OFFSET) & 0xFF, frame.get(INT_LE, COLLECTIVE_ROOT_OFFSET),
                frame.get(LONG_LE, COLLECTIVE_COUNT_OFFSET), frame.get(LONG_LE, COLLECTIVE_TOTAL_BYTES_OFFSET),
                frame.get(LONG_LE, COLLECTIVE_CHUNK_OFFSET_OFFSET), payload);
    }

    /**
     * Decodes the COLLECTIVE frame of {@code frameBytes} (at least its header) at the start of {@code memory}, whose
     * frame header and size {@link MessageCodec} checked, into {@code into}, keeping its payload view for a frame of
     * the same size in the same memory (see {@link MessageCodec#decode(int, MemorySegment, long, long,
     * Message.Collective)}); never fails: the caller checks the fields ({@link #problem}).
     */
    static void decodeInto(MemorySegment memory, long frameBytes, Message.Collective into) {
        long payloadBytes = frameBytes - COLLECTIVE_PAYLOAD_OFFSET;
        MemorySegment payload = into.payload();
        if (into.decodedFrom != memory || payload.byteSize() != payloadBytes) { // else the same view of the same bytes
            payload = memory.asSlice(COLLECTIVE_PAYLOAD_OFFSET, payloadBytes);
        }
        decode(memory, payload, into);
        into.decodedFrom = memory;
    }

    /** What is wrong with {@code c}'s fields, or null if it may go on the wire. */
    static String problem(Message.Collective c) {
        if (c.communicator() < 0) {
            return "communicator " + c.communicator() + " is negative";
        } else if (c.opSeq() < 0) {
            return "opSeq " + c.opSeq() + " is negative";
        } else if (c.step() < 0) {
            return "step " + c.step() + " is negative";
        } else if (c.operation() < 0 || c.operation() > 0xFF || c.dataType() < 0 || c.dataType() > 0xFF
                || c.reduceOp() < 0 || c.reduceOp() > 0xFF) {
            return "operation, dataType or reduceOp does not fit in a u8";
        } else if (c.root() < -1) {
            return "root " + c.root() + " is less than -1";
        } else if (c.count() < -1) {
            return "count " + c.count() + " is less than -1";
        } else if (c.totalBytes() < 0) {
            return "totalBytes " + c.totalBytes() + " is negative";
        } else if (c.offset() < 0) {
            return "offset " + c.offset() + " is negative";
        } else if (c.payload() == null) {
            return "payload is null";
        } else if (c.payload().byteSize() > MAX_COLLECTIVE_PAYLOAD_BYTES) {
            return "payload of " + c.payload().byteSize() + " bytes exceeds the maximum of "
                    + MAX_COLLECTIVE_PAYLOAD_BYTES + " per frame; send it in chunks";
        } else if (c.offset() > c.totalBytes() - c.payload().byteSize()) {
            return "chunk of " + c.payload().byteSize() + " bytes at offset " + c.offset()
                    + " runs past totalBytes " + c.totalBytes();
        }
        return null;
    }
}
