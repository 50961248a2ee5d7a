package io.nexar.transport.quic.formation;

import io.nexar.internal.config.Units;
import io.nexar.transport.quic.security.ClusterCa;
import io.nexar.transport.quic.security.JoinToken;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link SeedServer} runs. Build with {@link #builder(int)}; every setting but the world size has a default.
 *
 * @param bindAddress where the seed listens for TCP+TLS enrolment connections; port 0 picks a free port; IPv4 or
 *                    IPv6, a wildcard address listens on every interface
 * @param worldSize how many workers form the cluster, {@code >= 1}
 * @param ca the cluster CA, generated or loaded from the operator's files
 * @param token the join secret workers must prove
 * @param formationDeadline how long after start all workers must have joined
 * @param certValidity how long member certificates are valid
 * @param ioTimeout the longest a connection may take for its TLS handshake and join request (so that a silent
 *                  client cannot hold a slot)
 * @param maxPendingConnections connections handled at once; more are closed at once (a bound on what strangers can
 *                              make the seed hold)
 * @param advertisedHost the host put in the join string, or null: then the bind host, or for a wildcard bind a
 *                       routable local address
 * @param vacancyTimeout how long the slot of a worker that left before formation (its enrolment connection ended:
 *                       its process died) waits for another worker; then formation fails for every worker waiting,
 *                       naming the one that left, rather than at the formation deadline
 */
public record SeedOptions(InetSocketAddress bindAddress, int worldSize, ClusterCa ca, JoinToken token,
                          Duration formationDeadline, Duration certValidity, Duration ioTimeout,
                          int maxPendingConnections, String advertisedHost, Duration vacancyTimeout) {

    /** Default formation deadline. */
    public static final Duration DEFAULT_FORMATION_DEADLINE = Duration.ofMinutes(2);
    /** Default member certificate validity. */
    public static final Duration DEFAULT_CERT_VALIDITY = Duration.ofDays(1);
    /** Default per-connection I/O timeout. */
    public static final Duration DEFAULT_IO_TIMEOUT = Duration.ofSeconds(10);
    /** Default vacancy timeout: the default {@code heartbeat.timeout}, the time a running cluster takes to notice. */
    public static final Duration DEFAULT_VACANCY_TIMEOUT = Duration.ofSeconds(5);

    /**
     * Checks every setting.
     *
     * @throws IllegalArgumentException naming the setting and its bound
     */
    public SeedOptions {
        Objects.requireNonNull(bindAddress, "bindAddress");
        Objects.requireNonNull(ca, "ca");
        Objects.requireNonNull(token, "token");
        if (worldSize < 1) {
            throw new IllegalArgumentException("worldSize " + worldSize + " is less than 1");
        }
        positive("formationDeadline", formationDeadline);
        positive("certValidity", certValidity);
        positive("ioTimeout", ioTimeout);
        positive("vacancyTimeout", vacancyTimeout);
        if (maxPendingConnections < 1) {
            throw new IllegalArgumentException("maxPendingConnections " + maxPendingConnections + " is less than 1");
        }
    }

    /** A builder for a cluster of {@code worldSize} workers. */
    public static Builder builder(int worldSize) {
        return new Builder(worldSize);
    }

    /**
     * An address as {@code HOST:PORT}, {@code [V6]:PORT} for IPv6, for messages: the IP address when resolved, else
     * the host name as given (never {@link InetSocketAddress#toString()}'s {@code /127.0.0.1:47012}).
     */
    public static String format(InetSocketAddress a) {
        String host = a.getAddress() == null ? a.getHostString() : a.getAddress().getHostAddress();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
    }

    /**
     * Parses {@code HOST:PORT} or {@code [IPV6]:PORT} (port 0 allowed) into an address, resolving the host.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static InetSocketAddress parseAddress(String text) {
        Objects.requireNonNull(text, "text");
        String host;
        String port;
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            if (close < 0 || close + 1 >= text.length() || text.charAt(close + 1) != ':') {
                throw new IllegalArgumentException("address \"" + text + "\": expected [IPV6]:PORT");
            }
            host = text.substring(1, close);
            port = text.substring(close + 2);
        } else {
            int colon = text.lastIndexOf(':');
            if (colon < 0 || text.indexOf(':') != colon) {
                throw new IllegalArgumentException("address \"" + text + "\": expected HOST:PORT or [IPV6]:PORT");
            }
            host = text.substring(0, colon);
            port = text.substring(colon + 1);
        }
        int p;
        try {
            p = Integer.parseInt(port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("address \"" + text + "\": port \"" + port + "\" is not a number");
        }
        if (p < 0 || p > 65535) {
            throw new IllegalArgumentException("address \"" + text + "\": port " + p + " is not in [0, 65535]");
        }
        var a = host.isEmpty() ? new InetSocketAddress(p) : new InetSocketAddress(host, p);
        if (a.isUnresolved()) {
            throw new IllegalArgumentException("address \"" + text + "\": host " + host + " cannot be resolved");
        }
        return a;
    }

    private static void positive(String name, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " " + (d == null ? null : Units.formatRounded(d))
                    + " is not a positive duration");
        }
    }

    /** Builds {@link SeedOptions}; not thread-safe. */
    public static final class Builder {
        private final int worldSize;
        private InetSocketAddress bindAddress = new InetSocketAddress(0);
        private ClusterCa ca;
        private JoinToken token;
        private Duration formationDeadline = DEFAULT_FORMATION_DEADLINE;
        private Duration certValidity = DEFAULT_CERT_VALIDITY;
        private Duration ioTimeout = DEFAULT_IO_TIMEOUT;
        private int maxPendingConnections = 256;
        private String advertisedHost;
        private Duration vacancyTimeout = DEFAULT_VACANCY_TIMEOUT;

        private Builder(int worldSize) {
            this.worldSize = worldSize;
        }

        /** Where to listen (default: every interface, a free port). */
        public Builder bindAddress(InetSocketAddress address) {
            this.bindAddress = address;
            return this;
        }

        /** Where to listen, as {@code HOST:PORT} or {@code [IPV6]:PORT}. */
        public Builder bind(String hostPort) {
            return bindAddress(parseAddress(hostPort));
        }

        /** The cluster CA (default: a freshly generated one). */
        public Builder ca(ClusterCa clusterCa) {
            this.ca = clusterCa;
            return this;
        }

        /** The join secret (default: a freshly generated 256-bit one). */
        public Builder token(JoinToken joinToken) {
            this.token = joinToken;
            return this;
        }

        /** How long the workers have to join (default 2 minutes). */
        public Builder formationDeadline(Duration deadline) {
            this.formationDeadline = deadline;
            return this;
        }

        /** Member certificate validity (default 1 day). */
        public Builder certValidity(Duration validity) {
            this.certValidity = validity;
            return this;
        }

        /** Per-connection handshake and request timeout (default 10 s). */
        public Builder ioTimeout(Duration timeout) {
            this.ioTimeout = timeout;
            return this;
        }

        /** Connections handled at once (default 256). */
        public Builder maxPendingConnections(int max) {
            this.maxPendingConnections = max;
            return this;
        }

        /** The host the join string names (default: derived from the bind address). */
        public Builder advertisedHost(String host) {
            this.advertisedHost = host;
            return this;
        }

        /**
         * How long the slot of a worker that left before formation waits for another worker (default 5 s); see
         * {@link SeedOptions#vacancyTimeout()}.
         *
         * @param timeout a positive duration
         * @return this builder
         */
        public Builder vacancyTimeout(Duration timeout) {
            this.vacancyTimeout = timeout;
            return this;
        }

        /** The options; generates the CA and the token if none were given. */
        public SeedOptions build() {
            return new SeedOptions(bindAddress, worldSize, ca != null ? ca : ClusterCa.generate(),
                    token != null ? token : JoinToken.generate(), formationDeadline, certValidity, ioTimeout,
                    maxPendingConnections, advertisedHost, vacancyTimeout);
        }
    }
}
