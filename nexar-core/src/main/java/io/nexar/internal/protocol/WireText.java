package io.nexar.internal.protocol;

import static io.nexar.internal.protocol.MessageCodec.error;
import static io.nexar.internal.protocol.MessageCodec.source;
import static io.nexar.internal.protocol.WireFormat.MAX_TEXT_BYTES;

import java.lang.foreign.MemorySegment;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The text fields of frames (Goodbye and abort details, RPC error texts, enrolment names): their strict UTF-8
 * decoding, their size on the wire and the rule every text field keeps (well-formed, at most
 * {@link WireFormat#MAX_TEXT_BYTES} bytes). Shared by the family codecs; stateless.
 */
final class WireText {
    private WireText() {
    }

    /**
     * Strict UTF-8 text of a frame field.
     *
     * @throws io.nexar.ProtocolException "{field} from {peer} is not valid UTF-8" if the bytes are not well-formed
     */
    static String utf8(int peer, String field, MemorySegment frame, long at, int bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(frame.asSlice(at, bytes).asByteBuffer())
                    .toString();
        } catch (CharacterCodingException e) {
            throw error(peer, field + " from " + source(peer) + " is not valid UTF-8", e);
        }
    }

    /** Null if {@code s} fits a text field: well-formed and at most MAX_TEXT_BYTES of UTF-8. */
    static String textProblem(String name, String s) {
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

    /** The UTF-8 size of {@code s}, or -1 if it has an unpaired surrogate (which UTF-8 cannot represent). */
    static long utf8Length(String s) {
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
}
