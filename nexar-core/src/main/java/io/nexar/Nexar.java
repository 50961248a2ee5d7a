package io.nexar;

import io.nexar.internal.cluster.LaunchEnvironment;
import io.nexar.spi.TransportProvider;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;

/**
 * Entry point for processes that join a cluster over the network.
 *
 * <pre>{@code
 * try (Communicator world = Nexar.join()) {       // started by `nexar launch` or `nexar worker`
 *     world.send((world.rank() + 1) % world.worldSize(), 0, new float[] {world.rank()});
 * }
 * }</pre>
 *
 * <p>{@link #join()} reads the join string and the requested rank from the environment ({@code NEXAR_JOIN},
 * {@code NEXAR_RANK}, or the torchrun, Slurm and Open MPI equivalents; see {@code docs/config.md}). Without a
 * separate seed ({@code MASTER_ADDR}, {@code MASTER_PORT}, {@code WORLD_SIZE}, {@code RANK} and {@code NEXAR_TOKEN},
 * no {@code NEXAR_CA_FINGERPRINT}), rank 0 starts the seed in its own process and every rank enrols with it,
 * authenticating it by a proof of the token bound to the TLS session (docs/security.md). A transport
 * (nexar-transport-quic) must be on the class path or the module path. On the module path it is the module
 * {@code io.nexar.transport.quic}, found through {@code uses io.nexar.spi.TransportProvider} (an application needs
 * only {@code requires io.nexar}), and Netty's native modules for the platform must be added with
 * {@code --add-modules} (the transport's {@link TransportProvider#detail() detail} names them when QUIC does not
 * load; see the README).
 */
public final class Nexar {
    /**
     * The default of setting {@code formation.timeout} ({@link NexarConfig#formationTimeout()}): the time
     * {@link #join()} allows for enrolment and mesh formation.
     */
    public static final Duration DEFAULT_FORMATION_TIMEOUT = (Duration) ConfigKey.FORMATION_TIMEOUT.parsedDefault();

    private Nexar() {
    }

    /**
     * Joins the cluster described by the environment, with the configuration from the environment.
     *
     * @return the world communicator, this process's rank in it assigned
     * @throws ClusterFormationException if no join string is set, no transport is available, or joining fails
     * @throws InvalidConfigurationException if a variable has a bad value (a malformed join string names the
     *         variable it came from, {@code NEXAR_JOIN}), or a {@code NEXAR_*} variable or {@code nexar.*}
     *         property is not a setting
     */
    public static Communicator join() {
        var launch = LaunchEnvironment.from(System.getenv());
        NexarConfig config = NexarConfig.fromEnvironment();
        String joinString = launch.joinString().orElseThrow(() -> new ClusterFormationException(
                ErrorContext.of(Operation.JOIN), "failed: no join string: set NEXAR_JOIN to the line that"
                + " `nexar seed` prints after 'join: ' (or NEXAR_SEED / MASTER_ADDR+MASTER_PORT with NEXAR_TOKEN and"
                + " NEXAR_CA_FINGERPRINT), or, without a seed process, MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK and"
                + " NEXAR_TOKEN on every rank (rank 0 then starts the seed), or start this program with"
                + " `nexar launch` or `nexar worker`"));
        try {
            if (launch.hostsSeed()) {
                return transport().joinHostingSeed(joinString, launch.worldSize().orElseThrow(), config,
                        config.formationTimeout());
            }
            return checkWorldSize(join(joinString, launch.rank().orElse(-1), config), launch, config.joinElastic());
        } catch (InvalidConfigurationException e) {
            if (!JOIN_STRING_SETTING.equals(e.setting()) || e.expected() == null) {
                throw e;
            }
            String variable = launch.sources().stream().filter(s -> s.startsWith("join string from "))
                    .map(s -> s.substring("join string from ".length())).findFirst().orElse("NEXAR_JOIN");
            throw new InvalidConfigurationException(variable, e.value(), e.expected());
        }
    }

    /**
     * {@code world} if its size is the one the environment gives (or it gives none); otherwise closes it and fails:
     * a launcher that says 4 ranks while the seed formed 3 is a mistake to stop at, not a job to run. A worker that
     * joins a running cluster ({@code join.elastic}) finds it at whatever size it has grown to: not checked.
     */
    private static Communicator checkWorldSize(Communicator world, LaunchEnvironment launch, boolean elastic) {
        if (launch.worldSize().isEmpty() || launch.worldSize().getAsInt() == world.worldSize() || elastic) {
            return world;
        }
        String variable = launch.sources().stream().filter(s -> s.startsWith("world size "))
                .map(s -> s.substring(s.indexOf(" from ") + " from ".length())).findFirst().orElse("WORLD_SIZE");
        var context = new ErrorContext(Operation.JOIN, world.rank(), world.worldSize(), world.id(), -1, -1, -1);
        world.close();
        throw new ClusterFormationException(context, "failed: " + variable + " says the world has "
                + launch.worldSize().getAsInt() + " ranks, but the seed formed a world of " + world.worldSize()
                + " (the seed's --world-size and the launcher's must agree); this rank left the cluster");
    }

    /** The setting a malformed join string is reported under by {@link #join(String, int, NexarConfig)}. */
    private static final String JOIN_STRING_SETTING = "joinString";

    /**
     * Joins the cluster of {@code joinString}, within the configuration's {@code formation.timeout}.
     *
     * @param joinString {@code nexar://HOST:PORT?token=SECRET&ca=sha256:FINGERPRINT}, as {@code nexar seed} prints it
     * @param requestedRank the rank to ask for, or -1 for any
     * @param config the configuration of this process
     * @return the world communicator, this process's rank in it assigned
     * @throws ClusterFormationException if no transport is available or joining fails
     * @throws InvalidConfigurationException if {@code joinString} is malformed (setting {@code joinString}; the
     *         message shows it with the token replaced by {@code ***})
     */
    public static Communicator join(String joinString, int requestedRank, NexarConfig config) {
        if (joinString == null || joinString.isBlank()) {
            throw new IllegalArgumentException("joinString must not be empty");
        }
        if (requestedRank < -1) {
            throw new IllegalArgumentException("requestedRank " + requestedRank + " is not -1 (any) or a rank >= 0");
        }
        TransportProvider provider = transport();
        return provider.join(joinString, requestedRank, config, config.formationTimeout());
    }

    /**
     * Joins the cluster of a launch without a separate seed process that the caller describes in code (rank, world
     * size, the seed's address, the shared token) instead of environment variables: on rank 0 this starts the seed in
     * this process and enrols with it; on the other ranks it enrols with rank 0's seed, retrying until it listens.
     * The enrolment, mutual TLS and token proofs are those of {@link #join()} without a seed process.
     *
     * @param launch this rank's part of the launch
     * @param config the configuration
     * @return the world communicator; on rank 0 the seed stops when it is closed
     * @throws ClusterFormationException if no transport is available, the seed cannot listen (rank 0), or the
     *         cluster is not formed within {@link SeedlessLaunch#formationTimeout()}
     */
    public static Communicator join(SeedlessLaunch launch, NexarConfig config) {
        Objects.requireNonNull(launch, "launch");
        Objects.requireNonNull(config, "config");
        TransportProvider provider = transport();
        if (launch.rank() == 0) {
            return provider.joinHostingSeed(launch, config);
        }
        return provider.join(launch.joinString(), launch.rank(), config, launch.formationTimeout());
    }

    /**
     * The network transports found on the class or module path.
     *
     * @return every provider found by {@link java.util.ServiceLoader}, available or not
     */
    public static List<TransportProvider> transports() {
        return ServiceLoader.load(TransportProvider.class).stream().map(ServiceLoader.Provider::get).toList();
    }

    private static TransportProvider transport() {
        List<TransportProvider> all = transports();
        return all.stream().filter(TransportProvider::isAvailable).findFirst().orElseThrow(() ->
                new ClusterFormationException(ErrorContext.of(Operation.JOIN), all.isEmpty()
                        ? "failed: no network transport on the class or module path (add nexar-transport-quic)"
                        : "failed: no usable network transport: " + all.stream()
                                .map(p -> p.name() + ": " + p.detail()).toList()));
    }
}
