package io.nexar.cli;

import io.nexar.InvalidConfigurationException;
import io.nexar.internal.config.Units;
import io.nexar.internal.config.ValueFormatException;
import io.nexar.transport.quic.formation.SeedOptions;
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

    /**
     * Parses a {@code HOST:PORT} flag ({@code [V6]:PORT} for IPv6; port 0 picks a free one); a bad value names the
     * flag, for example {@code --bind="127.0.0.1:99999": expected HOST:PORT ...; port 99999 is not in [0, 65535]}.
     */
    static InetSocketAddress bindAddress(String flag, String value) {
        try {
            return SeedOptions.parseAddress(value);
        } catch (IllegalArgumentException e) {
            String why = e.getMessage().replaceFirst("^address \"[^\"]*\": ", "");
            throw new InvalidConfigurationException(flag, value, "HOST:PORT or [V6]:PORT with a port in [0, 65535]"
                    + (why.startsWith("expected") ? "" : "; " + why));
        }
    }

    /** {@code host:port}, or {@code [v6]:port} for IPv6. */
    static String address(InetSocketAddress a) {
        return a == null ? "-" : SeedOptions.format(a);
    }
}
