package io.nexar.spi;

import io.nexar.Communicator;
import io.nexar.NexarConfig;
import io.nexar.SeedlessLaunch;
import java.time.Duration;

/**
 * A network transport that can join a cluster, found with {@link java.util.ServiceLoader}. nexar-transport-quic
 * provides the QUIC transport; the core itself needs none. Less stable than the {@code io.nexar} API: for transport
 * modules, not applications.
 */
public interface TransportProvider {

    /** {@return a short name, for example {@code quic}, shown by {@code nexar info}} */
    String name();

    /**
     * Whether this provider can run here (for example, its native library loaded); when false, {@link #detail()}
     * says why.
     *
     * @return true if this provider can join a cluster here
     */
    boolean isAvailable();

    /** {@return one line about the provider's state, for example the native library it loaded or why it could not} */
    String detail();

    /**
     * Enrols with the seed named by {@code joinString}, connects to every other member and returns the world
     * communicator.
     *
     * @param joinString {@code nexar://HOST:PORT?token=SECRET&ca=sha256:FINGERPRINT}
     * @param requestedRank the rank to ask for, or -1 to let the seed assign one
     * @param config the configuration of this process
     * @param formationTimeout how long joining and connecting may take in all
     * @return the world communicator, this process's rank in it assigned
     * @throws io.nexar.ClusterFormationException if the cluster cannot be joined or formed in time
     * @throws io.nexar.InvalidConfigurationException if the join string is malformed: its setting is
     *         {@code joinString}, its value the join string with the token replaced by {@code ***}
     */
    Communicator join(String joinString, int requestedRank, NexarConfig config, Duration formationTimeout);

    /**
     * Starts the seed in this process at the address of {@code joinString} and joins its cluster as rank 0, like
     * every other rank: the launch without a separate seed ({@code MASTER_ADDR}, {@code MASTER_PORT},
     * {@code WORLD_SIZE}, {@code RANK} and {@code NEXAR_TOKEN}, no CA fingerprint). The seed runs until the returned
     * communicator is closed.
     *
     * @param joinString {@code nexar://HOST:PORT?token=SECRET&auth=token}: where to listen and the token to require
     * @param worldSize how many ranks form the cluster
     * @param config the configuration of this process
     * @param formationTimeout how long starting the seed, joining and connecting may take in all
     * @return the world communicator, with this process as rank 0
     * @throws io.nexar.ClusterFormationException if the seed cannot listen there, or the cluster cannot be formed in
     *         time
     * @throws UnsupportedOperationException if this transport cannot host a seed
     */
    default Communicator joinHostingSeed(String joinString, int worldSize, NexarConfig config,
                                         Duration formationTimeout) {
        throw new UnsupportedOperationException("transport " + name() + " cannot host a seed");
    }

    /**
     * Like {@link #joinHostingSeed(String, int, NexarConfig, Duration)}, for a launch described in code: starts the
     * seed at the launch's seed address (port 0: one the kernel picks), tells
     * {@link SeedlessLaunch#onSeedListening()} the port it listens on, and joins its cluster as rank 0.
     *
     * @param launch rank 0's part of the launch
     * @param config the configuration
     * @return the world communicator; the seed stops when it is closed
     * @throws io.nexar.ClusterFormationException if the seed cannot listen there, or the cluster cannot be formed in
     *         time
     * @throws IllegalArgumentException if the launch is not rank 0's
     * @throws UnsupportedOperationException if this transport cannot host a seed
     */
    default Communicator joinHostingSeed(SeedlessLaunch launch, NexarConfig config) {
        throw new UnsupportedOperationException("transport " + name() + " cannot host a seed");
    }
}
