package io.nexar.transport.quic;

import io.nexar.ClusterFormationException;
import io.nexar.ErrorContext;
import io.nexar.Operation;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks the UDP (QUIC) and TCP (lanes) ports a joining member publishes at enrolment, before its transport can bind
 * them (it needs the certificate that enrolment gives it). A picked port is free when picked and bound again a moment
 * later; in between another process could take it.
 *
 * <p>The usual way to pick (bind port 0, let the kernel choose) makes that likely on a busy machine: the kernel hands
 * the same ephemeral range to every process that binds port 0 or connects, and a test suite or a cluster of many
 * workers does so all the time (CI saw {@code cannot bind UDP 127.0.0.1:PORT: Address already in use}). So ports
 * are picked at random below the kernel's ephemeral range ({@code net.ipv4.ip_local_port_range}, read from /proc),
 * where nothing is assigned automatically: only a process that asks for that very port could take it. Each
 * candidate is bound once to check that it is free. Where the range cannot be read (not Linux) or no candidate is
 * free after {@value #ATTEMPTS} tries, the kernel picks as before.
 */
final class PortReservation {
    static final int ATTEMPTS = 64;
    /** The lowest port picked at random: well above the registered ports most services listen on. */
    static final int LOWEST = 20_000;

    private PortReservation() {
    }

    /** A UDP port on {@code host} that was free a moment ago. */
    static int udp(InetAddress host) {
        return pick(host, true);
    }

    /** A TCP port on {@code host} that was free a moment ago. */
    static int tcp(InetAddress host) {
        return pick(host, false);
    }

    private static int pick(InetAddress host, boolean udp) {
        int[] range = randomRange(ephemeralLow());
        if (range != null) {
            var random = ThreadLocalRandom.current();
            for (int i = 0; i < ATTEMPTS; i++) {
                int port = random.nextInt(range[0], range[1]);
                if (tryBind(host, port, udp) > 0) {
                    return port;
                }
            }
        }
        int port = tryBind(host, 0, udp);
        if (port > 0) {
            return port;
        }
        throw new ClusterFormationException(ErrorContext.of(Operation.JOIN), "failed: cannot bind a "
                + (udp ? "UDP" : "TCP") + " port on " + host.getHostAddress());
    }

    /**
     * The range {@code [from, to)} to pick from, given the first port of the kernel's ephemeral range; null if there
     * is too little room below it.
     */
    static int[] randomRange(int ephemeralLow) {
        if (ephemeralLow - LOWEST < 1_000) {
            return null;
        }
        return new int[] {LOWEST, ephemeralLow};
    }

    /** The first port of the kernel's ephemeral range, or -1 if unknown. */
    static int ephemeralLow() {
        try {
            String s = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
            return Integer.parseInt(s.split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Binds {@code port} (0: any) on {@code host} and releases it; the port bound, or -1 if it was taken. */
    private static int tryBind(InetAddress host, int port, boolean udp) {
        try {
            if (udp) {
                try (var socket = new DatagramSocket(new InetSocketAddress(host, port))) {
                    return socket.getLocalPort();
                }
            }
            try (var socket = new ServerSocket()) {
                socket.setReuseAddress(true);
                socket.bind(new InetSocketAddress(host, port));
                return socket.getLocalPort();
            }
        } catch (IOException e) {
            return -1;
        }
    }
}
