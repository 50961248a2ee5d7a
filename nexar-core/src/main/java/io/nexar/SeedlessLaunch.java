package io.nexar;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import java.util.function.IntConsumer;

/**
 * A launch without a separate seed process, described in code rather than by environment variables: rank 0 starts
 * the seed inside its process and every rank enrols with it, proving the shared token over a TLS session it is bound
 * to, exactly as {@link Nexar#join()} does for {@code MASTER_ADDR}, {@code MASTER_PORT}, {@code WORLD_SIZE},
 * {@code RANK} and {@code NEXAR_TOKEN} (docs/launching.md, docs/security.md). For integrations that learn the rank,
 * the world size and the seed's address from their own scheduler, such as nexar-spark's barrier tasks.
 *
 * <pre>{@code
 * var launch = SeedlessLaunch.builder(rank, worldSize).seed("10.0.0.5", 29500).token(token).build();
 * try (Communicator world = Nexar.join(launch, NexarConfig.fromEnvironment())) { ... }
 * }</pre>
 *
 * <p>Rank 0 may give port 0: its seed then listens on a port the kernel picks, and {@link Builder#onSeedListening}
 * is told which, so that it can pass the port on to the other ranks before they enrol (no port is reserved and
 * released in between). Immutable and thread-safe; {@link #toString()} hides the token.
 */
public final class SeedlessLaunch {
    /** Bytes of a token made by {@link #newToken()} (256 bits). */
    public static final int TOKEN_BYTES = 32;
    private static final int MIN_TOKEN_BYTES = 16;
    private static final int MAX_TOKEN_BYTES = 64;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final int rank;
    private final int worldSize;
    private final String seedHost;
    private final int seedPort;
    private final String token;
    private final Duration formationTimeout;
    private final IntConsumer onSeedListening;

    private SeedlessLaunch(Builder b) {
        this.rank = b.rank;
        this.worldSize = b.worldSize;
        this.seedHost = b.seedHost;
        this.seedPort = b.seedPort;
        this.token = b.token;
        this.formationTimeout = b.formationTimeout;
        this.onSeedListening = b.onSeedListening;
    }

    /**
     * Starts a description of the launch for one rank.
     *
     * @param rank this process's rank, in {@code [0, worldSize)}; rank 0 hosts the seed
     * @param worldSize how many ranks form the cluster, at least 1
     * @return a builder; {@link Builder#seed} and {@link Builder#token} are required
     * @throws IllegalArgumentException if the rank is not in {@code [0, worldSize)}
     */
    public static Builder builder(int rank, int worldSize) {
        if (worldSize < 1) {
            throw new IllegalArgumentException("worldSize " + worldSize + " is not >= 1");
        }
        if (rank < 0 || rank >= worldSize) {
            throw new IllegalArgumentException("rank " + rank + " is not in [0, " + worldSize + ")");
        }
        return new Builder(rank, worldSize);
    }

    /**
     * Makes a fresh random token for a launch: {@value #TOKEN_BYTES} bytes from {@link SecureRandom}, written as
     * unpadded base64url.
     *
     * @return the token, a secret: hand it only to the ranks of the job
     */
    public static String newToken() {
        byte[] bytes = new byte[TOKEN_BYTES];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /**
     * This process's rank.
     *
     * @return this process's rank
     */
    public int rank() {
        return rank;
    }

    /**
     * How many ranks form the cluster.
     *
     * @return how many ranks form the cluster
     */
    public int worldSize() {
        return worldSize;
    }

    /**
     * The host the seed listens on (rank 0) and the other ranks connect to.
     *
     * @return the host the seed listens on (rank 0) and the other ranks connect to
     */
    public String seedHost() {
        return seedHost;
    }

    /**
     * The seed's TCP port; 0 on rank 0 for a port the kernel picks.
     *
     * @return the seed's TCP port; 0 on rank 0 for a port the kernel picks
     */
    public int seedPort() {
        return seedPort;
    }

    /**
     * The shared token, a secret.
     *
     * @return the shared token, a secret
     */
    public String token() {
        return token;
    }

    /**
     * How long enrolment and connecting to every rank may take in all.
     *
     * @return how long enrolment and connecting to every rank may take in all
     */
    public Duration formationTimeout() {
        return formationTimeout;
    }

    /**
     * Told the seed's port once it listens (rank 0 only); never null.
     *
     * @return told the seed's port once it listens (rank 0 only); never null
     */
    public IntConsumer onSeedListening() {
        return onSeedListening;
    }

    /**
     * The token-only join string the ranks other than 0 enrol with: the seed's address and the token, no CA
     * fingerprint (the transport authenticates the seed by its proof of the token).
     *
     * @return {@code nexar://HOST:PORT?token=TOKEN&auth=token}, a secret
     * @throws IllegalStateException on rank 0 with port 0 (the port is not known before the seed listens)
     */
    public String joinString() {
        if (seedPort == 0) {
            throw new IllegalStateException("rank 0's seed port is picked when the seed starts: no join string yet");
        }
        String host = seedHost.indexOf(':') >= 0 && !seedHost.startsWith("[") ? "[" + seedHost + "]" : seedHost;
        return "nexar://" + host + ":" + seedPort + "?token=" + token + "&auth=token";
    }

    @Override
    public String toString() {
        return "SeedlessLaunch[rank " + rank + " of " + worldSize + ", seed " + seedHost + ":" + seedPort
                + ", token ***, formation timeout " + formationTimeout + "]";
    }

    /** Builds a {@link SeedlessLaunch}; not thread-safe. */
    public static final class Builder {
        private final int rank;
        private final int worldSize;
        private String seedHost;
        private int seedPort = -1;
        private String token;
        private Duration formationTimeout = Nexar.DEFAULT_FORMATION_TIMEOUT;
        private IntConsumer onSeedListening = port -> { };

        private Builder(int rank, int worldSize) {
            this.rank = rank;
            this.worldSize = worldSize;
        }

        /**
         * Where the seed listens. Rank 0 binds that address if it is one of its host's, else the wildcard of its
         * family, and gives it to the other ranks as the seed's address.
         *
         * @param host a host name or address the other ranks can reach rank 0 at
         * @param port the seed's TCP port in {@code [1, 65535]}, or 0 on rank 0 for one the kernel picks
         * @return this builder
         * @throws IllegalArgumentException if the host is blank or the port out of range
         */
        public Builder seed(String host, int port) {
            Objects.requireNonNull(host, "host");
            if (host.isBlank()) {
                throw new IllegalArgumentException("seed host must not be blank");
            }
            if (port < 0 || port > 65535 || (port == 0 && rank != 0)) {
                throw new IllegalArgumentException("seed port " + port + " is not in [1, 65535]"
                        + (rank == 0 ? " or 0 (any)" : " (only rank 0 may give 0)"));
            }
            String h = host.strip();
            this.seedHost = h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
            this.seedPort = port;
            return this;
        }

        /**
         * The secret every rank shares, such as one from {@link #newToken()}.
         *
         * @param token 16 to 64 bytes in base64url or base64, with or without padding
         * @return this builder
         * @throws IllegalArgumentException if it is not base64 or not 16 to 64 bytes long (the message never shows
         *         the token)
         */
        public Builder token(String token) {
            Objects.requireNonNull(token, "token");
            String t = token.strip();
            byte[] bytes;
            try {
                bytes = Base64.getUrlDecoder().decode(t.replace('+', '-').replace('/', '_'));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("token is not base64url or base64 (" + t.length()
                        + " characters)");
            }
            if (bytes.length < MIN_TOKEN_BYTES || bytes.length > MAX_TOKEN_BYTES) {
                throw new IllegalArgumentException("token has " + bytes.length + " bytes, not " + MIN_TOKEN_BYTES
                        + " to " + MAX_TOKEN_BYTES);
            }
            // one spelling on every rank, safe in a join string's query
            this.token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
            Arrays.fill(bytes, (byte) 0);
            return this;
        }

        /**
         * How long enrolment and connecting may take in all; {@link Nexar#DEFAULT_FORMATION_TIMEOUT} by default.
         *
         * @param timeout a positive duration
         * @return this builder
         * @throws IllegalArgumentException if it is not positive
         */
        public Builder formationTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("formation timeout " + timeout + " is not positive");
            }
            this.formationTimeout = timeout;
            return this;
        }

        /**
         * On rank 0, called with the seed's port once the seed listens, before rank 0 enrols (from the thread that
         * called {@link Nexar#join(SeedlessLaunch, NexarConfig)}); ignored on other ranks. The call blocks joining:
         * hand the port on and return.
         *
         * @param listener told the port
         * @return this builder
         */
        public Builder onSeedListening(IntConsumer listener) {
            this.onSeedListening = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Builds the launch.
         *
         * @return the launch
         * @throws IllegalStateException if the seed's address or the token is missing
         */
        public SeedlessLaunch build() {
            if (seedHost == null) {
                throw new IllegalStateException("the seed's address is not set: call seed(host, port)");
            }
            if (token == null) {
                throw new IllegalStateException("the token is not set: call token(...)");
            }
            return new SeedlessLaunch(this);
        }
    }
}
