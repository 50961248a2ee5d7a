package io.nexar;

import java.time.Duration;
import java.util.Objects;

/**
 * The typed setters of {@link NexarConfig.Builder}, one per {@link ConfigKey} (and {@link #heartbeat} for the pair
 * of heartbeat keys): each checks its value against the key's range and sets it on the builder. The builder is the
 * only subclass; it holds the values and resolves the environment and system properties.
 */
abstract sealed class BuilderSetters permits NexarConfig.Builder {
    BuilderSetters() {
    }

    /** Sets {@code key} to {@code value} after checking it against the key's range; returns the builder. */
    abstract NexarConfig.Builder typed(ConfigKey key, Object value);

    /** Sets {@code key} from text in the key's syntax ({@link NexarConfig.Builder#set}). */
    abstract NexarConfig.Builder set(ConfigKey key, String text);

    /**
     * Sets {@link ConfigKey#P2P_TIMEOUT}: the deadline of one send or recv.
     *
     * @param timeout positive
     * @return this builder
     * @throws InvalidConfigurationException if not positive
     */
    public NexarConfig.Builder p2pTimeout(Duration timeout) {
        return typed(ConfigKey.P2P_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
    }

    /**
     * Sets {@link ConfigKey#CLOSE_TIMEOUT}: how long {@code close()} waits for in-flight work before failing it.
     *
     * @param timeout positive
     * @return this builder
     * @throws InvalidConfigurationException if not positive
     */
    public NexarConfig.Builder closeTimeout(Duration timeout) {
        return typed(ConfigKey.CLOSE_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
    }

    /**
     * Sets {@link ConfigKey#MAX_FRAME_SIZE}: the largest frame accepted on the wire.
     *
     * @param bytes from 4KiB to 1GiB
     * @return this builder
     * @throws InvalidConfigurationException if out of range
     */
    public NexarConfig.Builder maxFrameBytes(long bytes) {
        return typed(ConfigKey.MAX_FRAME_SIZE, bytes);
    }

    /**
     * Sets {@link ConfigKey#CHUNK_SIZE}: point-to-point payloads larger than this are split in chunks of this
     * size. It must also be at most {@code maxFrameBytes - FRAME_HEADROOM_BYTES}, checked by
     * {@link NexarConfig.Builder#build()}.
     *
     * @param bytes from 1KiB to 1GiB
     * @return this builder
     * @throws InvalidConfigurationException if out of range
     */
    public NexarConfig.Builder chunkBytes(long bytes) {
        return typed(ConfigKey.CHUNK_SIZE, bytes);
    }

    /**
     * Sets {@link ConfigKey#UNEXPECTED_MAX_BYTES}: the bound of the store of messages that arrived before their
     * receive was posted; senders are back-pressured beyond it.
     *
     * @param bytes from 0 to 2<sup>62</sup>
     * @return this builder
     * @throws InvalidConfigurationException if out of range
     */
    public NexarConfig.Builder unexpectedMaxBytes(long bytes) {
        return typed(ConfigKey.UNEXPECTED_MAX_BYTES, bytes);
    }

    /**
     * Sets {@link ConfigKey#COLLECTIVE_TIMEOUT}: the deadline of one collective operation.
     *
     * @param timeout positive
     * @return this builder
     * @throws InvalidConfigurationException if not positive
     */
    public NexarConfig.Builder collectiveTimeout(Duration timeout) {
        return typed(ConfigKey.COLLECTIVE_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
    }

    /**
     * Sets {@link ConfigKey#HEARTBEAT_INTERVAL} and {@link ConfigKey#HEARTBEAT_TIMEOUT}: how often peers are sent
     * a heartbeat on an otherwise idle link, and after how much silence a peer is declared failed.
     *
     * @param interval 10ms to 1h
     * @param timeout 20ms to 1h, greater than {@code interval} (checked by {@link NexarConfig.Builder#build()})
     * @return this builder
     * @throws InvalidConfigurationException if out of range
     */
    public NexarConfig.Builder heartbeat(Duration interval, Duration timeout) {
        typed(ConfigKey.HEARTBEAT_INTERVAL, Objects.requireNonNull(interval, "interval"));
        return typed(ConfigKey.HEARTBEAT_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
    }

    /**
     * Sets {@link ConfigKey#RECOVERY_POLICY}: what a failed rank does to the survivors.
     *
     * @param policy the policy
     * @return this builder
     */
    public NexarConfig.Builder recoveryPolicy(RecoveryPolicy policy) {
        return typed(ConfigKey.RECOVERY_POLICY, Objects.requireNonNull(policy, "policy"));
    }

    /**
     * Sets {@link ConfigKey#WORLD_MIN_SIZE}: a recovery that would leave fewer ranks fails instead.
     *
     * @param ranks 1 to 65535
     * @return this builder
     * @throws InvalidConfigurationException if out of range
     */
    public NexarConfig.Builder worldMinSize(int ranks) {
        return typed(ConfigKey.WORLD_MIN_SIZE, ranks);
    }

    /**
     * Sets {@link ConfigKey#RECOVERY_TIMEOUT}: the deadline of one agreement on the failed set.
     *
     * @param timeout positive
     * @return this builder
     * @throws InvalidConfigurationException if not positive
     */
    public NexarConfig.Builder recoveryTimeout(Duration timeout) {
        return typed(ConfigKey.RECOVERY_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
    }

    /**
     * Sets {@link ConfigKey#WORLD_MAX_SIZE}: grow() admits waiting workers only up to this many ranks.
     *
     * @param ranks 1 to 65535, at least {@link ConfigKey#WORLD_MIN_SIZE}
     * @return this builder
     * @throws InvalidConfigurationException if out of range
     */
    public NexarConfig.Builder worldMaxSize(int ranks) {
        return typed(ConfigKey.WORLD_MAX_SIZE, ranks);
    }

    /**
     * Sets {@link ConfigKey#JOIN_ELASTIC}: join a running cluster at the members' next grow().
     *
     * @param elastic true to wait for admission by a running cluster
     * @return this builder
     */
    public NexarConfig.Builder joinElastic(boolean elastic) {
        return typed(ConfigKey.JOIN_ELASTIC, elastic);
    }

    /**
     * Sets {@link ConfigKey#TOPOLOGY}: which ranks connect directly.
     *
     * @param topology full-mesh, k-regular:K or hypercube
     * @return this builder
     */
    public NexarConfig.Builder topology(Topology topology) {
        return typed(ConfigKey.TOPOLOGY, Objects.requireNonNull(topology, "topology"));
    }

    /**
     * Sets {@link ConfigKey#COLLECTIVE_DETERMINISTIC}: reductions fold every element in rank order.
     *
     * @param deterministic true for rank-order folds
     * @return this builder
     */
    public NexarConfig.Builder collectiveDeterministic(boolean deterministic) {
        return typed(ConfigKey.COLLECTIVE_DETERMINISTIC, deterministic);
    }

    /**
     * Sets {@link ConfigKey#COLLECTIVE_VERIFY}: every collective call is checked on every rank before it runs.
     *
     * @param verify true to check every call (debugging; costs one small allgather per call)
     * @return this builder
     */
    public NexarConfig.Builder collectiveVerify(boolean verify) {
        return typed(ConfigKey.COLLECTIVE_VERIFY, verify);
    }

    /**
     * Sets {@link ConfigKey#HANG_REPORT_AFTER}: how long an operation waits without progress before the rank
     * reports what it and the ranks it waits for are doing; {@link Duration#ZERO} for never.
     *
     * @param after from 0s to 24h
     * @return this builder
     * @throws InvalidConfigurationException if negative or longer than 24 hours
     */
    public NexarConfig.Builder hangReportAfter(Duration after) {
        return typed(ConfigKey.HANG_REPORT_AFTER, Objects.requireNonNull(after, "after"));
    }

    /**
     * Sets {@link ConfigKey#COLLECTIVE_PROBE_AFTER}: how long a collective's round waits without progress before it
     * asks the ranks it waits for whether they run the same call (fingerprint probes, which turn a root mismatch into
     * {@link CollectiveMismatchException} instead of a timeout); {@link Duration#ZERO} for never.
     *
     * @param after from 0s to 24h
     * @return this builder
     * @throws InvalidConfigurationException if negative or longer than 24 hours
     */
    public NexarConfig.Builder collectiveProbeAfter(Duration after) {
        return typed(ConfigKey.COLLECTIVE_PROBE_AFTER, Objects.requireNonNull(after, "after"));
    }

    /**
     * Sets {@link ConfigKey#RPC_TIMEOUT}: the deadline of one remote call.
     *
     * @param timeout positive
     * @return this builder
     * @throws InvalidConfigurationException if not positive
     */
    public NexarConfig.Builder rpcTimeout(Duration timeout) {
        return typed(ConfigKey.RPC_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
    }

    /**
     * Sets {@link ConfigKey#RPC_MAX_IN_FLIGHT}: the most remote calls to one rank in flight at once.
     *
     * @param calls from 1 to 65536
     * @return this builder
     * @throws InvalidConfigurationException if not in [1, 65536]
     */
    public NexarConfig.Builder rpcMaxInFlight(int calls) {
        return typed(ConfigKey.RPC_MAX_IN_FLIGHT, calls);
    }

    /**
     * Sets {@link ConfigKey#ALLREDUCE_ALGORITHM}: the allreduce algorithm.
     *
     * @param algorithm the algorithm
     * @return this builder
     */
    public NexarConfig.Builder allReduceAlgorithm(AllReduceAlgorithm algorithm) {
        return typed(ConfigKey.ALLREDUCE_ALGORITHM, Objects.requireNonNull(algorithm, "algorithm"));
    }

    /**
     * Sets {@link ConfigKey#ALLREDUCE_SMALL_SIZE}: allreduce buffers up to this size use the small-message
     * algorithms under auto.
     *
     * @param bytes from 0B
     * @return this builder
     * @throws InvalidConfigurationException if out of range
     */
    public NexarConfig.Builder allReduceSmallBytes(long bytes) {
        return typed(ConfigKey.ALLREDUCE_SMALL_SIZE, bytes);
    }

    /**
     * Sets {@link ConfigKey#ALLREDUCE_LARGE_SIZE}: allreduce buffers of at least this size use the pipelined ring
     * under auto.
     *
     * @param bytes from 0B
     * @return this builder
     * @throws InvalidConfigurationException if out of range
     */
    public NexarConfig.Builder allReduceLargeBytes(long bytes) {
        return typed(ConfigKey.ALLREDUCE_LARGE_SIZE, bytes);
    }

    /**
     * Sets {@link ConfigKey#PIPELINE_SEGMENT_SIZE}: the segment size of the pipelined ring.
     *
     * @param bytes from 1KiB to 1GiB
     * @return this builder
     * @throws InvalidConfigurationException if out of range
     */
    public NexarConfig.Builder pipelineSegmentBytes(long bytes) {
        return typed(ConfigKey.PIPELINE_SEGMENT_SIZE, bytes);
    }

    /**
     * Sets {@link ConfigKey#BROADCAST_ALGORITHM}: the broadcast algorithm.
     *
     * @param algorithm the algorithm
     * @return this builder
     */
    public NexarConfig.Builder broadcastAlgorithm(BroadcastAlgorithm algorithm) {
        return typed(ConfigKey.BROADCAST_ALGORITHM, Objects.requireNonNull(algorithm, "algorithm"));
    }

    /**
     * Sets {@link ConfigKey#BROADCAST_LARGE_SIZE}: broadcast buffers of at least this size use the pipelined chain
     * under auto.
     *
     * @param bytes from 0B
     * @return this builder
     * @throws InvalidConfigurationException if out of range
     */
    public NexarConfig.Builder broadcastLargeBytes(long bytes) {
        return typed(ConfigKey.BROADCAST_LARGE_SIZE, bytes);
    }

    /**
     * Sets {@link ConfigKey#ALLGATHER_ALGORITHM}: the allgather algorithm.
     *
     * @param algorithm the algorithm
     * @return this builder
     */
    public NexarConfig.Builder allGatherAlgorithm(AllGatherAlgorithm algorithm) {
        return typed(ConfigKey.ALLGATHER_ALGORITHM, Objects.requireNonNull(algorithm, "algorithm"));
    }

    /**
     * Sets {@link ConfigKey#ALLGATHER_SMALL_SIZE}: allgather outputs up to this size use recursive doubling under
     * auto.
     *
     * @param bytes from 0B
     * @return this builder
     * @throws InvalidConfigurationException if out of range
     */
    public NexarConfig.Builder allGatherSmallBytes(long bytes) {
        return typed(ConfigKey.ALLGATHER_SMALL_SIZE, bytes);
    }

    /**
     * Sets {@link ConfigKey#BULK}: the lanes of point-to-point and collective messages.
     *
     * @param mode the lanes
     * @return this builder
     */
    public NexarConfig.Builder bulk(BulkMode mode) {
        return typed(ConfigKey.BULK, Objects.requireNonNull(mode, "mode"));
    }

    /**
     * Sets {@link ConfigKey#BULK_THRESHOLD}: messages of at least this size take the TCP lanes.
     *
     * @param bytes from 0B
     * @return this builder
     * @throws InvalidConfigurationException if out of range
     */
    public NexarConfig.Builder bulkThresholdBytes(long bytes) {
        return typed(ConfigKey.BULK_THRESHOLD, bytes);
    }

    /**
     * Sets {@link ConfigKey#POLL_WINDOW}: how long a waiting thread reads the TCP lanes itself before it sleeps.
     *
     * @param window from 0s to 1s
     * @return this builder
     * @throws InvalidConfigurationException if out of range
     */
    public NexarConfig.Builder pollWindow(Duration window) {
        return typed(ConfigKey.POLL_WINDOW, Objects.requireNonNull(window, "window"));
    }

    /**
     * Sets {@link ConfigKey#TLS_ENGINE}: the TLS implementation of the TCP lanes.
     *
     * @param engine the engine
     * @return this builder
     */
    public NexarConfig.Builder tlsEngine(TlsEngine engine) {
        return typed(ConfigKey.TLS_ENGINE, Objects.requireNonNull(engine, "engine"));
    }

    /**
     * Sets {@link ConfigKey#BIND_ADDRESS}: the interface the QUIC and TCP-lane listeners bind.
     *
     * @param address an IP address, a host name, a wildcard ({@code 0.0.0.0}, {@code ::}) or {@code auto}
     * @return this builder
     * @throws InvalidConfigurationException if it is none of these
     */
    public NexarConfig.Builder bindAddress(String address) {
        return set(ConfigKey.BIND_ADDRESS, Objects.requireNonNull(address, "address"));
    }

    /**
     * Sets {@link ConfigKey#ADVERTISE_ADDRESS}: the address the other members dial to reach this process.
     *
     * @param address an IP address, a host name or {@code auto}
     * @return this builder
     * @throws InvalidConfigurationException if it is none of these
     */
    public NexarConfig.Builder advertiseAddress(String address) {
        return set(ConfigKey.ADVERTISE_ADDRESS, Objects.requireNonNull(address, "address"));
    }

    /**
     * Sets {@link ConfigKey#PORT_RANGE}: the ports the QUIC and TCP-lane listeners may bind.
     *
     * @param range the ports, or {@link PortRange#ANY}
     * @return this builder
     */
    public NexarConfig.Builder portRange(PortRange range) {
        return typed(ConfigKey.PORT_RANGE, Objects.requireNonNull(range, "range"));
    }

    /**
     * Sets {@link ConfigKey#HEARTBEAT_INTERVAL}: how often an idle link carries a heartbeat; below the heartbeat
     * timeout (checked by {@link NexarConfig.Builder#build()}).
     *
     * @param interval from 10ms to 1h
     * @return this builder
     * @throws InvalidConfigurationException if out of range
     */
    public NexarConfig.Builder heartbeatInterval(Duration interval) {
        return typed(ConfigKey.HEARTBEAT_INTERVAL, Objects.requireNonNull(interval, "interval"));
    }

    /**
     * Sets {@link ConfigKey#HEARTBEAT_TIMEOUT}: after how much silence a peer is declared failed; above the
     * heartbeat interval (checked by {@link NexarConfig.Builder#build()}).
     *
     * @param timeout from 20ms to 1h
     * @return this builder
     * @throws InvalidConfigurationException if out of range
     */
    public NexarConfig.Builder heartbeatTimeout(Duration timeout) {
        return typed(ConfigKey.HEARTBEAT_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
    }

    /**
     * Sets {@link ConfigKey#FORMATION_TIMEOUT}: how long {@link Nexar#join()} waits for enrolment and mesh
     * formation.
     *
     * @param timeout positive
     * @return this builder
     * @throws InvalidConfigurationException if not positive
     */
    public NexarConfig.Builder formationTimeout(Duration timeout) {
        return typed(ConfigKey.FORMATION_TIMEOUT, Objects.requireNonNull(timeout, "timeout"));
    }

    /**
     * Sets {@link ConfigKey#CERT_VALIDITY}: how long the member certificates a seed of this process issues are
     * valid.
     *
     * @param validity the validity; positive
     * @return this builder
     * @throws InvalidConfigurationException if not positive
     */
    public NexarConfig.Builder certValidity(Duration validity) {
        return typed(ConfigKey.CERT_VALIDITY, Objects.requireNonNull(validity, "validity"));
    }
}
