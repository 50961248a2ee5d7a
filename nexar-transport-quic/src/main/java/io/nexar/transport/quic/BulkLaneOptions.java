package io.nexar.transport.quic;

import java.util.Objects;

/**
 * How a {@link QuicTransport} moves large payloads (DESIGN.md section 2, "bulk lane"): messages of at least
 * {@code thresholdBytes} on the point-to-point and collective lanes travel on one TCP connection per peer pair
 * instead of QUIC, because TLS over TCP moves several times more bytes per second on the same machine.
 *
 * <p>The TCP connection is set up after the pair's QUIC connection, by the lower rank, and checked like it (mutual TLS
 * 1.3, chain to the cluster CA, the member of the peer table, and the same Hello). If it cannot be set up, both sides
 * keep using QUIC: a receiver always reads both paths, and a sender uses TCP only once its own end of the connection
 * is verified, so the choice can never leave a message where nobody listens (inventory W19).
 *
 * @param mode whether there is a bulk lane and how it is protected
 * @param thresholdBytes payloads of at least this many bytes (a message's total size) use the bulk lane
 * @param port the TCP port to listen on; 0 picks a free one (a joining worker reserves its port before enrolment,
 *             because the seed publishes it in the peer table)
 */
public record BulkLaneOptions(Mode mode, long thresholdBytes, int port) {

    /** The default threshold: 1 MiB. */
    public static final long DEFAULT_THRESHOLD_BYTES = 1L << 20;

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

    /** TLS, 1 MiB threshold. */
    public static BulkLaneOptions defaults() {
        return new BulkLaneOptions(Mode.TLS, DEFAULT_THRESHOLD_BYTES);
    }

    /** No bulk lane. */
    public static BulkLaneOptions off() {
        return new BulkLaneOptions(Mode.OFF, DEFAULT_THRESHOLD_BYTES);
    }
}
