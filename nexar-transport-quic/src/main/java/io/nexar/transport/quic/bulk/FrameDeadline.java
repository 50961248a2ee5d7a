package io.nexar.transport.quic.bulk;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The deadline of the frame a {@link BulkReader} (or a QUIC lane's stream) is reading: when its first and its latest
 * byte arrived, how long it has left, and the message that fails the lane when it missed it. The rule (in
 * {@link BulkReader}'s class comment): no pause of {@code heartbeat.timeout} within a frame, and the whole frame within
 * {@code heartbeat.timeout} plus its size at {@link #MIN_FRAME_BYTES_PER_SECOND}.
 *
 * <p>Threading: not thread-safe; used by its reader holding the turn, or by the reader thread between its turns (on
 * QUIC, by the stream's event loop).
 */
public final class FrameDeadline {
    /**
     * The slowest average rate a begun frame may arrive at, after a grace of {@code heartbeat.timeout}; the QUIC
     * lanes hold their frames to the same rule.
     */
    public static final long MIN_FRAME_BYTES_PER_SECOND = 64 << 10;
    /** When the first byte of the frame being read arrived, and the last one. */
    private long begunNanos;
    private long byteNanos;

    /** A deadline with no frame begun yet: {@link #arrived(long, boolean)} with {@code first} begins one. */
    public FrameDeadline() {
    }

    /** Bytes of the frame arrived at {@code now}; {@code first}: they are its first. */
    public void arrived(long now, boolean first) {
        byteNanos = now;
        if (first) {
            begunNanos = now;
        }
    }

    /** Bytes arrived at {@code now} within the frame begun. */
    public void arrived(long now) {
        byteNanos = now;
    }

    /**
     * Nanoseconds left before the frame being read misses its deadline.
     *
     * @param size the frame's size (prefix included), or the length prefix's while that is read
     */
    public long nanosLeft(long now, long size, Duration heartbeatTimeout) {
        long timeout = heartbeatTimeout.toNanos();
        long total = timeout + TimeUnit.SECONDS.toNanos(size) / MIN_FRAME_BYTES_PER_SECOND;
        return Math.min(byteNanos + timeout, begunNanos + total) - now;
    }

    /** Why the frame missed its deadline at {@code now}: {@code have} bytes of {@code size} ("length prefix", ...). */
    public String missed(long now, long have, String size, Duration heartbeatTimeout) {
        String timeout = io.nexar.internal.config.Units.formatRounded(heartbeatTimeout);
        return "sent " + have + " bytes of a " + size + " in "
                + TimeUnit.NANOSECONDS.toMillis(now - begunNanos) + " ms and nothing for "
                + TimeUnit.NANOSECONDS.toMillis(now - byteNanos) + " ms: a begun frame must arrive without a "
                + "pause of heartbeat.timeout (" + timeout + ") and at " + (MIN_FRAME_BYTES_PER_SECOND >> 10)
                + " KiB/s or more after that long";
    }
}
