package io.nexar.cli;

import io.nexar.InvalidConfigurationException;
import io.nexar.internal.config.Units;
import io.nexar.internal.config.ValueFormatException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.time.Duration;

/** Parsing and printing shared by the subcommands. */
final class Flags {
    private Flags() {
    }

    /** Parses a duration flag such as {@code 30s}; a bad value names the flag. */
    static Duration duration(String flag, String value) {
        try {
            return Units.parseDuration(value);
        } catch (ValueFormatException e) {
            throw new InvalidConfigurationException(flag, value, "a duration such as 500ms or 30s");
        }
    }

    /** {@code host:port}, or {@code [v6]:port} for IPv6. */
    static String address(InetSocketAddress a) {
        if (a == null) {
            return "-";
        }
        String host = a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress();
        return (a.getAddress() instanceof Inet6Address ? "[" + host + "]" : host) + ":" + a.getPort();
    }
}
