package io.nexar.transport.quic.bulk;

import static io.nexar.internal.protocol.WireFormat.HELLO_FRAME_BYTES;
import static io.nexar.internal.protocol.WireFormat.LENGTH_PREFIX_BYTES;
import static io.nexar.internal.protocol.WireFormat.MIN_FRAME_LENGTH;

import java.io.EOFException;

/** What a {@link BulkReader} accepts of a frame's length prefix, and how it names an end of stream within a frame. */
final class FrameChecks {
    private FrameChecks() {
    }

    /**
     * The size of a frame (prefix included) from its length prefix, checked before anything is allocated.
     *
     * @param length the length prefix, unsigned
     * @param max {@code max.frame.size}
     * @param hello the frame must be a HELLO (the first on a bulk lane)
     * @throws io.nexar.ProtocolException the length is out of bounds, naming the peer through {@code owner}
     */
    static int checkedSize(BulkConnection owner, long length, long max, boolean hello) {
        if (length > max) {
            throw owner.protocolError("sent a frame of " + length + " bytes, which exceeds the maximum of " + max
                    + " bytes");
        }
        if (length < MIN_FRAME_LENGTH) {
            throw owner.protocolError("sent a frame of " + length + " bytes, shorter than the " + MIN_FRAME_LENGTH
                    + "-byte type and flags header");
        }
        if (hello && length != HELLO_FRAME_BYTES - LENGTH_PREFIX_BYTES) {
            throw owner.protocolError("began its bulk lane with a frame of " + length + " bytes instead of HELLO");
        }
        return (int) (LENGTH_PREFIX_BYTES + length);
    }

    /** An end of the stream within a frame: {@code code} as {@link BulkSocket#readAvailable} returns it. */
    static EOFException endOfStream(int code) {
        return new EOFException(code == -2 ? "the connection ended without a TLS close_notify"
                : "the connection ended within a frame");
    }
}
