package io.nexar.transport.quic;

import io.netty.handler.codec.quic.QuicConnectionCloseEvent;
import java.nio.charset.StandardCharsets;
import io.nexar.internal.protocol.GoodbyeReason;
import java.time.Duration;

/**
 * The words of the QUIC transport: how a closed connection is described (each text completes "rank N ..."), the
 * application close codes, and length limits of texts sent to a peer. Stateless.
 */
final class Texts {
    /** Application close code for a refused identity; codes 0-2 are the {@code GoodbyeReason} codes. */
    static final int REFUSED = 0x10;
    /** Application close code: the closing rank declared the other one failed (heartbeat timeout, or recovery). */
    static final int DECLARED_FAILED = 0x11;
    private static final int MAX_REASON_CHARS = 250;

    private Texts() {
    }

    /**
     * Completes "rank N ..." for a QUIC connection that the peer closed with {@code e}, or that closed without an
     * event ({@code e == null}) because it timed out or was lost.
     */
    static String describeClose(QuicConnectionCloseEvent e, boolean timedOut, Duration idleTimeout) {
        if (timedOut) {
            return "stopped answering (nothing received for " + idleTimeout.toSeconds() + "s)";
        }
        if (e == null) {
            return "was disconnected (its QUIC connection closed)";
        }
        if (e.isTlsError()) {
            return "refused the TLS handshake (TLS alert " + alert(QuicConnectionCloseEvent.extractTlsError(e.error()))
                    + "; is this rank's certificate issued by the cluster CA, for the member the peer table names?)";
        }
        String reason = reasonOf(e);
        if (!e.isApplicationClose()) {
            return "closed the connection (QUIC error " + e.error() + (reason.isEmpty() ? "" : ": " + reason) + ")";
        }
        return switch (e.error()) {
            case 0, 1, 2 -> GoodbyeReason.fromCode(e.error()).describe(reason);
            case REFUSED -> "refused the connection: " + reason;
            case DECLARED_FAILED -> "declared this rank failed (" + reason + ")";
            default -> "closed the connection (error " + e.error() + ": " + reason + ")";
        };
    }

    /** The close reason's text; Netty's accessor throws when the peer sent none. */
    private static String reasonOf(QuicConnectionCloseEvent e) {
        try {
            byte[] r = e.reason();
            return r == null ? "" : new String(r, StandardCharsets.UTF_8);
        } catch (NullPointerException none) {
            return "";
        }
    }

    private static String alert(int code) {
        String name = switch (code) {
            case 40 -> "handshake_failure";
            case 42 -> "bad_certificate";
            case 43 -> "unsupported_certificate";
            case 45 -> "certificate_expired";
            case 46 -> "certificate_unknown";
            case 48 -> "unknown_ca";
            case 80 -> "internal_error";
            case 116 -> "certificate_required";
            case 120 -> "no_application_protocol";
            default -> null;
        };
        return name == null ? String.valueOf(code) : code + " " + name;
    }

    /** A duration in nanoseconds for messages: {@code 850ms}, {@code 3.2s}. */
    static String millis(long nanos) {
        long ms = nanos / 1_000_000;
        return ms < 1000 ? ms + "ms" : String.format(java.util.Locale.ROOT, "%.1fs", ms / 1000.0);
    }

    /**
     * At most {@value #MAX_REASON_CHARS} characters, never splitting a surrogate pair: at most 1000 bytes of UTF-8, so
     * it fits a Goodbye's detail and a CONNECTION_CLOSE reason.
     */
    static String truncate(String s) {
        if (s == null) {
            return "";
        }
        if (s.length() <= MAX_REASON_CHARS) {
            return s;
        }
        int end = Character.isHighSurrogate(s.charAt(MAX_REASON_CHARS - 1)) ? MAX_REASON_CHARS - 1 : MAX_REASON_CHARS;
        return s.substring(0, end);
    }
}
