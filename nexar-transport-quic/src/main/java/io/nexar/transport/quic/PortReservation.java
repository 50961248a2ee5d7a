package io.nexar.transport.quic;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where {@link Listeners} looks for a port when setting {@code port.range} is 0 (any): at random below the kernel's
 * ephemeral range ({@code net.ipv4.ip_local_port_range}, read from /proc), where nothing is assigned automatically.
 * The kernel's own choice (bind port 0) comes from the ephemeral range that every process that binds port 0 or
 * connects shares, so on a busy machine (a test suite, many workers) a port picked there is soon in use by an
 * outgoing connection; below the range only a process that asks for that very port could take it. Each candidate is
 * bound for good when it is free (never released and bound again); where the range cannot be read (not Linux) or
 * no candidate is free after {@value #ATTEMPTS} tries, the kernel picks.
 */
final class PortReservation {
    static final int ATTEMPTS = 64;
    /** The lowest port picked at random: well above the registered ports most services listen on. */
    static final int LOWEST = 20_000;

    private PortReservation() {
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
}
