package io.nexar.transport.quic;

import java.net.InetAddress;
import java.time.Duration;

/**
 * Fixed QUIC parameters of a {@link QuicTransport}, chosen by measurement on loopback (the module's test class
 * {@code QuicBench}): 16 KiB datagrams moved 64 MiB at 150-390 MB/s where 1350-byte ones (with or without GSO)
 * managed 40-65 MB/s. Candidates for configuration keys once the settings table has a QUIC section.
 *
 * @param initialMaxData connection-level flow-control window in bytes (what a peer may have in flight to us over
 *        all lanes together)
 * @param initialMaxStreamData per-lane flow-control window in bytes at the start (quiche grows the window of a
 *        stream whose reader keeps up); it bounds how much a lane that stalls early buffers before its sender waits,
 *        which the point-to-point contract checks (a 16 MiB window would let 640 KiB through a full store)
 * @param maxUdpPayloadBytes largest UDP payload we send, and the receive buffer size per datagram
 * @param idleTimeout a connection that received nothing for this long is dead
 * @param laneHighWaterBytes bytes of a lane that senders may queue in Netty before quiche took them; a sender waits
 *        while more are queued
 * @param ioThreads event-loop threads of one transport (one serves the listening socket, one the dialling socket)
 * @param gsoSegments UDP segments per GSO send on epoll, 0 to disable
 */
record QuicTuning(long initialMaxData, long initialMaxStreamData, int maxUdpPayloadBytes, Duration idleTimeout,
                  int laneHighWaterBytes, int ioThreads, int gsoSegments) {

    /** The ALPN protocol of nexar peer links. */
    static final String ALPN = "nexar/1";

    /** Internet-safe UDP payload: fits a 1500-byte MTU with IPv6 and UDP headers. */
    static final int INTERNET_UDP_PAYLOAD = 1350;

    /**
     * Loopback UDP payload. The loopback MTU is 64 KiB, so a transport bound to a loopback address (which can only
     * reach loopback peers) sends large datagrams: far fewer packets, system calls and crypto operations per byte.
     */
    static final int LOOPBACK_UDP_PAYLOAD = 16 * 1024;

    /**
     * The same parameters with the QUIC idle timeout raised to at least {@code heartbeatTimeout} plus 5 s: nexar's
     * failure detector ({@code heartbeat.timeout}) decides when a silent peer is dead, QUIC's idle timeout is only
     * the backstop.
     */
    QuicTuning withHeartbeatTimeout(Duration heartbeatTimeout) {
        Duration floor = heartbeatTimeout.plusSeconds(5);
        return floor.compareTo(idleTimeout) <= 0 ? this : new QuicTuning(initialMaxData, initialMaxStreamData,
                maxUdpPayloadBytes, floor, laneHighWaterBytes, ioThreads, gsoSegments);
    }

    /** The parameters for a transport bound to {@code bindAddress}. */
    static QuicTuning forBindAddress(InetAddress bindAddress) {
        boolean loopback = bindAddress.isLoopbackAddress();
        return new QuicTuning(64L << 20, 256L << 10, loopback ? LOOPBACK_UDP_PAYLOAD : INTERNET_UDP_PAYLOAD,
                Duration.ofSeconds(30), 64 << 10, 2, loopback ? 0 : 16);
    }
}
