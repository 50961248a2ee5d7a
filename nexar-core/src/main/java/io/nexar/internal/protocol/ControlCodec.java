package io.nexar.internal.protocol;

import static io.nexar.internal.protocol.MessageCodec.error;
import static io.nexar.internal.protocol.MessageCodec.hex;
import static io.nexar.internal.protocol.MessageCodec.requireSize;
import static io.nexar.internal.protocol.MessageCodec.source;
import static io.nexar.internal.protocol.WireFormat.*;
import static io.nexar.internal.protocol.WireText.textProblem;
import static io.nexar.internal.protocol.WireText.utf8;
import static io.nexar.internal.protocol.WireText.utf8Length;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * The bodies of the control frames: GOODBYE, COLLECTIVE_ABORT, AGREE and STATUS (layouts in {@link MessageCodec}).
 * {@link MessageCodec} writes and checks the frame header and dispatches here by type; each message has its size,
 * its body encoder, its decoder and its field rules. Stateless.
 */
final class ControlCodec {
    private ControlCodec() {
    }

    static long size(Message.Goodbye g) {
        return GOODBYE_DETAIL_OFFSET + utf8Length(g.detail());
    }

    static long size(Message.CollectiveAbort a) {
        return ABORT_DETAIL_OFFSET + utf8Length(a.detail());
    }

    static long size(Message.Agree a) {
        return AGREE_RANKS_OFFSET + 4L * (a.failed().length + ballot(a).length + a.value().length);
    }

    static long size(Message.Status st) {
        return STATUS_RANKS_OFFSET + 4L * st.waitingFor().length + utf8Length(st.text());
    }

    static void encode(Message.Goodbye g, MemorySegment dst) {
        byte[] text = g.detail().getBytes(StandardCharsets.UTF_8); // well-formed: checked by encodedSize
        dst.set(BYTE, GOODBYE_REASON_OFFSET, (byte) g.reason().code());
        dst.set(SHORT_LE, GOODBYE_DETAIL_LENGTH_OFFSET, (short) text.length);
        MemorySegment.copy(text, 0, dst, BYTE, GOODBYE_DETAIL_OFFSET, text.length);
    }

    static void encode(Message.CollectiveAbort a, MemorySegment dst) {
        byte[] text = a.detail().getBytes(StandardCharsets.UTF_8); // well-formed: checked by encodedSize
        dst.set(INT_LE, ABORT_COMMUNICATOR_OFFSET, a.communicator());
        dst.set(LONG_LE, ABORT_OP_SEQ_OFFSET, a.opSeq());
        dst.set(BYTE, ABORT_REASON_OFFSET, (byte) a.reason().code());
        dst.set(BYTE, ABORT_FIELD_OFFSET, (byte) a.field());
        dst.set(INT_LE, ABORT_CULPRIT_OFFSET, a.culprit());
        dst.set(SHORT_LE, ABORT_DETAIL_LENGTH_OFFSET, (short) text.length);
        MemorySegment.copy(text, 0, dst, BYTE, ABORT_DETAIL_OFFSET, text.length);
    }

    static void encode(Message.Agree a, MemorySegment dst) {
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

    static void encode(Message.Status st, MemorySegment dst) {
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

    static Message.Goodbye decodeGoodbye(int peer, MemorySegment frame) {
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
        return new Message.Goodbye(reason, utf8(peer, "GOODBYE detail", frame, GOODBYE_DETAIL_OFFSET, textBytes));
    }

    static Message.CollectiveAbort decodeAbort(int peer, MemorySegment frame) {
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
        String detail = utf8(peer, "COLLECTIVE_ABORT detail", frame, ABORT_DETAIL_OFFSET, textBytes);
        return new Message.CollectiveAbort(frame.get(INT_LE, ABORT_COMMUNICATOR_OFFSET),
                frame.get(LONG_LE, ABORT_OP_SEQ_OFFSET), reason, frame.get(BYTE, ABORT_FIELD_OFFSET) & 0xFF,
                frame.get(INT_LE, ABORT_CULPRIT_OFFSET), detail);
    }

    static Message.Agree decodeAgree(int peer, MemorySegment frame) {
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

    static Message.Status decodeStatus(int peer, MemorySegment frame) {
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
        String text = utf8(peer, "STATUS text", frame, textAt, textBytes);
        return new Message.Status(kind == 1, frame.get(LONG_LE, STATUS_REQUEST_OFFSET), ranks, text);
    }

    static String problem(Message.CollectiveAbort a) {
        if (a.communicator() < 0) {
            return "communicator " + a.communicator() + " is negative";
        } else if (a.opSeq() < 0) {
            return "opSeq " + a.opSeq() + " is negative";
        } else if (a.reason() == null) {
            return "reason is null";
        } else if (a.field() < 0 || a.field() > 0xFF) {
            return "field " + a.field() + " does not fit in a u8";
        } else if (a.culprit() < -1) {
            return "culprit " + a.culprit() + " is neither a world rank nor -1";
        }
        return textProblem("detail", a.detail());
    }

    static String problem(Message.Goodbye g) {
        if (g.reason() == null) {
            return "reason is null";
        }
        return textProblem("detail", g.detail());
    }

    static String problem(Message.Agree a) {
        if (a.communicator() < 0) {
            return "communicator " + a.communicator() + " is negative";
        } else if (a.generation() < 0) {
            return "generation " + a.generation() + " is negative";
        } else if (a.kind() == null) {
            return "kind is null";
        }
        String p = setProblem("failed", a.failed());
        p = p != null ? p : setProblem("acceptedBallot", ballot(a));
        return p != null ? p : setProblem("value", a.value());
    }

    static String problem(Message.Status st) {
        if (st.waitingFor() == null) {
            return "waitingFor is null";
        } else if (st.text() == null) {
            return "text is null";
        } else if (!st.reply() && (st.waitingFor().length > 0 || !st.text().isEmpty())) {
            return "a question carries no ranks and no text";
        }
        String p = setProblem("waitingFor", st.waitingFor());
        return p != null ? p : textProblem("text", st.text());
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

    /** An AGREE's accepted ballot as it travels: empty when there is none. */
    private static int[] ballot(Message.Agree a) {
        return a.acceptedBallot() == null ? new int[0] : a.acceptedBallot();
    }
}
