package io.nexar.transport.quic.bulk;

import java.util.Objects;

/**
 * How the QUIC transport ({@code QuicTransport}) moves point-to-point and collective messages (docs/design.md
 * section 2, "bulk lane"): messages of at least {@code thresholdBytes} travel on TCP instead of QUIC, on two
 * connections per peer pair (one for the point-to-point lane, one for the collective lane, so that the lanes never
 * block each other, as QUIC's streams do not), because TLS over TCP moves several times more bytes per second on the
 * same machine, and a small message crosses fewer threads (the sender writes it to the socket itself). The default
 * threshold is 0: every such message; QUIC keeps control (heartbeats, agreement, goodbye) and RPC. Deviation from
 * docs/design.md (which has small messages on QUIC), measured in docs/performance.md.
 *
 * <p>The TCP connection is set up after the pair's QUIC connection, by the lower rank, and checked like it (mutual TLS
 * 1.3, chain to the cluster CA, the member of the peer table, and the same Hello). If it cannot be set up, both sides
 * keep using QUIC: a receiver always reads both paths, and a sender uses TCP only once its own end of the connection
 * is verified, so the choice can never leave a message where nobody listens (docs/design.md W19).
 *
 * @param mode whether there is a bulk lane and how it is protected
 * @param thresholdBytes payloads of at least this many bytes (a message's total size) use the bulk lane
 * @param port the TCP port to listen on when the transport binds its own address; 0 picks a free one (a joining
 *             worker binds its listener before enrolment instead, within setting {@code port.range}, because the
 *             seed publishes it in the peer table)
 */
public record BulkLaneOptions(Mode mode, long thresholdBytes, int port) {

    /** The default threshold: 0, every point-to-point and collective message takes the TCP lanes. */
    public static final long DEFAULT_THRESHOLD_BYTES = 0;

    /** Whether there is a bulk lane, and how it is protected. */
    public enum Mode {
        /** No bulk lane: everything travels on QUIC. */
        OFF,
        /** TCP with mutual TLS 1.3 and the same identity checks as QUIC (the default). */
        TLS,
        /**
         * Plain TCP, neither encrypted nor authenticated beyond the Hello: only for isolated networks, by explicit
         * choice ({@code bulk=tcp-plain}); the transport logs a warning when it binds.
         */
        TCP_PLAIN
    }

    /**
     * @throws IllegalArgumentException if {@code thresholdBytes} is negative
     */
    public BulkLaneOptions {
        Objects.requireNonNull(mode, "mode");
        if (thresholdBytes < 0) {
            throw new IllegalArgumentException("thresholdBytes " + thresholdBytes + " is negative");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is not in [0, 65535]");
        }
    }

    /** Listens on a free port. */
    public BulkLaneOptions(Mode mode, long thresholdBytes) {
        this(mode, thresholdBytes, 0);
    }

    /** These options, listening on {@code newPort}. */
    public BulkLaneOptions withPort(int newPort) {
        return new BulkLaneOptions(mode, thresholdBytes, newPort);
    }

    /** TLS, every message (threshold 0). */
    public static BulkLaneOptions defaults() {
        return new BulkLaneOptions(Mode.TLS, DEFAULT_THRESHOLD_BYTES);
    }

    /** No bulk lane. */
    public static BulkLaneOptions off() {
        return new BulkLaneOptions(Mode.OFF, DEFAULT_THRESHOLD_BYTES);
    }
}
