package io.nexar;

import java.time.Duration;

/**
 * The typed accessors of {@link NexarConfig}, one per {@link ConfigKey} (in the order of the key table): each returns
 * the key's value as its type. {@link NexarConfig} is the only subclass; it holds the values and their sources.
 */
abstract sealed class ConfigAccessors permits NexarConfig {
    ConfigAccessors() {
    }

    /**
     * The value of a key, boxed: {@link Duration}, {@link Long} bytes, {@link Integer}, {@link Boolean}, or the
     * constant of the key's enum.
     */
    abstract Object value(ConfigKey key);

    /**
     * Setting {@link ConfigKey#P2P_TIMEOUT}.
     *
     * @return the deadline of one send or recv; positive
     */
    public Duration p2pTimeout() {
        return (Duration) value(ConfigKey.P2P_TIMEOUT);
    }

    /**
     * Setting {@link ConfigKey#CLOSE_TIMEOUT}.
     *
     * @return how long {@code close()} waits for in-flight work before failing it; positive
     */
    public Duration closeTimeout() {
        return (Duration) value(ConfigKey.CLOSE_TIMEOUT);
    }

    /**
     * Setting {@link ConfigKey#MAX_FRAME_SIZE}.
     *
     * @return the largest frame accepted on the wire, in bytes; 4KiB to 1GiB
     */
    public long maxFrameBytes() {
        return (Long) value(ConfigKey.MAX_FRAME_SIZE);
    }

    /**
     * Setting {@link ConfigKey#CHUNK_SIZE}.
     *
     * @return the size in bytes of the chunks larger point-to-point payloads are split into; at most
     *         {@code maxFrameBytes() - FRAME_HEADROOM_BYTES}
     */
    public long chunkBytes() {
        return (Long) value(ConfigKey.CHUNK_SIZE);
    }

    /**
     * Setting {@link ConfigKey#UNEXPECTED_MAX_BYTES}.
     *
     * @return the bound in bytes of the store of messages that arrived before their receive was posted
     */
    public long unexpectedMaxBytes() {
        return (Long) value(ConfigKey.UNEXPECTED_MAX_BYTES);
    }

    /**
     * Setting {@link ConfigKey#COLLECTIVE_TIMEOUT}.
     *
     * @return the deadline of one collective operation; positive
     */
    public Duration collectiveTimeout() {
        return (Duration) value(ConfigKey.COLLECTIVE_TIMEOUT);
    }

    /**
     * Setting {@link ConfigKey#COLLECTIVE_DETERMINISTIC}.
     *
     * @return whether reductions fold in rank order
     */
    public boolean collectiveDeterministic() {
        return (Boolean) value(ConfigKey.COLLECTIVE_DETERMINISTIC);
    }

    /**
     * Setting {@link ConfigKey#COLLECTIVE_VERIFY}.
     *
     * @return whether every collective's call is checked on every rank first
     */
    public boolean collectiveVerify() {
        return (Boolean) value(ConfigKey.COLLECTIVE_VERIFY);
    }

    /**
     * Setting {@link ConfigKey#HANG_REPORT_AFTER}.
     *
     * @return how long an operation waits without progress before a hang report; zero for never
     */
    public Duration hangReportAfter() {
        return (Duration) value(ConfigKey.HANG_REPORT_AFTER);
    }

    /**
     * Setting {@link ConfigKey#COLLECTIVE_PROBE_AFTER}.
     *
     * @return how long a collective's round waits without progress before it sends fingerprint probes to the ranks
     *         it waits for; zero for never
     */
    public Duration collectiveProbeAfter() {
        return (Duration) value(ConfigKey.COLLECTIVE_PROBE_AFTER);
    }

    /**
     * Setting {@link ConfigKey#ALLREDUCE_ALGORITHM}.
     *
     * @return the allreduce algorithm
     */
    public AllReduceAlgorithm allReduceAlgorithm() {
        return (AllReduceAlgorithm) value(ConfigKey.ALLREDUCE_ALGORITHM);
    }

    /**
     * Setting {@link ConfigKey#ALLREDUCE_SMALL_SIZE}.
     *
     * @return the largest allreduce buffer, in bytes, of the small-message algorithms under auto
     */
    public long allReduceSmallBytes() {
        return (Long) value(ConfigKey.ALLREDUCE_SMALL_SIZE);
    }

    /**
     * Setting {@link ConfigKey#ALLREDUCE_LARGE_SIZE}.
     *
     * @return the smallest allreduce buffer, in bytes, of the pipelined ring under auto
     */
    public long allReduceLargeBytes() {
        return (Long) value(ConfigKey.ALLREDUCE_LARGE_SIZE);
    }

    /**
     * Setting {@link ConfigKey#PIPELINE_SEGMENT_SIZE}.
     *
     * @return the segment size in bytes of the pipelined ring
     */
    public long pipelineSegmentBytes() {
        return (Long) value(ConfigKey.PIPELINE_SEGMENT_SIZE);
    }

    /**
     * Setting {@link ConfigKey#BROADCAST_ALGORITHM}.
     *
     * @return the broadcast algorithm
     */
    public BroadcastAlgorithm broadcastAlgorithm() {
        return (BroadcastAlgorithm) value(ConfigKey.BROADCAST_ALGORITHM);
    }

    /**
     * Setting {@link ConfigKey#BROADCAST_LARGE_SIZE}.
     *
     * @return the smallest broadcast buffer, in bytes, of the pipelined chain under auto
     */
    public long broadcastLargeBytes() {
        return (Long) value(ConfigKey.BROADCAST_LARGE_SIZE);
    }

    /**
     * Setting {@link ConfigKey#ALLGATHER_ALGORITHM}.
     *
     * @return the allgather algorithm
     */
    public AllGatherAlgorithm allGatherAlgorithm() {
        return (AllGatherAlgorithm) value(ConfigKey.ALLGATHER_ALGORITHM);
    }

    /**
     * Setting {@link ConfigKey#ALLGATHER_SMALL_SIZE}.
     *
     * @return the largest allgather output, in bytes, of recursive doubling under auto
     */
    public long allGatherSmallBytes() {
        return (Long) value(ConfigKey.ALLGATHER_SMALL_SIZE);
    }

    /**
     * Setting {@link ConfigKey#BULK}.
     *
     * @return the lanes of point-to-point and collective messages
     */
    public BulkMode bulk() {
        return (BulkMode) value(ConfigKey.BULK);
    }

    /**
     * Setting {@link ConfigKey#BULK_THRESHOLD}.
     *
     * @return the smallest message, in bytes, that takes the TCP lanes
     */
    public long bulkThresholdBytes() {
        return (Long) value(ConfigKey.BULK_THRESHOLD);
    }

    /**
     * Setting {@link ConfigKey#POLL_WINDOW}.
     *
     * @return how long a waiting thread reads the TCP lanes itself before it sleeps
     */
    public Duration pollWindow() {
        return (Duration) value(ConfigKey.POLL_WINDOW);
    }

    /**
     * Setting {@link ConfigKey#TLS_ENGINE}.
     *
     * @return the TLS implementation of the TCP lanes
     */
    public TlsEngine tlsEngine() {
        return (TlsEngine) value(ConfigKey.TLS_ENGINE);
    }

    /**
     * Setting {@link ConfigKey#BIND_ADDRESS}.
     *
     * @return the address of the interface the listeners bind (an IP literal without brackets or a host name), or
     *         {@code auto}
     */
    public String bindAddress() {
        return (String) value(ConfigKey.BIND_ADDRESS);
    }

    /**
     * Setting {@link ConfigKey#ADVERTISE_ADDRESS}.
     *
     * @return the address the other members dial (an IP literal without brackets or a host name), or {@code auto}
     */
    public String advertiseAddress() {
        return (String) value(ConfigKey.ADVERTISE_ADDRESS);
    }

    /**
     * Setting {@link ConfigKey#PORT_RANGE}.
     *
     * @return the ports the QUIC and TCP-lane listeners may bind; {@link PortRange#ANY} for any free port
     */
    public PortRange portRange() {
        return (PortRange) value(ConfigKey.PORT_RANGE);
    }

    /**
     * Setting {@link ConfigKey#HEARTBEAT_INTERVAL}.
     *
     * @return how often an idle link carries a heartbeat
     */
    public Duration heartbeatInterval() {
        return (Duration) value(ConfigKey.HEARTBEAT_INTERVAL);
    }

    /**
     * Setting {@link ConfigKey#HEARTBEAT_TIMEOUT}.
     *
     * @return after how much silence a peer is declared failed; greater than {@link #heartbeatInterval()}
     */
    public Duration heartbeatTimeout() {
        return (Duration) value(ConfigKey.HEARTBEAT_TIMEOUT);
    }

    /**
     * Setting {@link ConfigKey#RECOVERY_POLICY}.
     *
     * @return what a failed rank does to the survivors
     */
    public RecoveryPolicy recoveryPolicy() {
        return (RecoveryPolicy) value(ConfigKey.RECOVERY_POLICY);
    }

    /**
     * Setting {@link ConfigKey#WORLD_MIN_SIZE}.
     *
     * @return the fewest ranks a recovery may leave
     */
    public int worldMinSize() {
        return (Integer) value(ConfigKey.WORLD_MIN_SIZE);
    }

    /**
     * Setting {@link ConfigKey#RECOVERY_TIMEOUT}.
     *
     * @return the deadline of one agreement on the failed set
     */
    public Duration recoveryTimeout() {
        return (Duration) value(ConfigKey.RECOVERY_TIMEOUT);
    }

    /**
     * Setting {@link ConfigKey#WORLD_MAX_SIZE}.
     *
     * @return the most ranks grow() admits up to; at least {@link #worldMinSize()}
     */
    public int worldMaxSize() {
        return (Integer) value(ConfigKey.WORLD_MAX_SIZE);
    }

    /**
     * Setting {@link ConfigKey#JOIN_ELASTIC}.
     *
     * @return whether this process joins a running cluster at the members' next grow()
     */
    public boolean joinElastic() {
        return (Boolean) value(ConfigKey.JOIN_ELASTIC);
    }

    /**
     * Setting {@link ConfigKey#TOPOLOGY}.
     *
     * @return which ranks connect directly; the others are reached through relays
     */
    public Topology topology() {
        return (Topology) value(ConfigKey.TOPOLOGY);
    }

    /**
     * Setting {@link ConfigKey#RPC_TIMEOUT}.
     *
     * @return the deadline of one remote call
     */
    public Duration rpcTimeout() {
        return (Duration) value(ConfigKey.RPC_TIMEOUT);
    }

    /**
     * Setting {@link ConfigKey#FORMATION_TIMEOUT}.
     *
     * @return how long {@link Nexar#join()} waits for enrolment and mesh formation; positive
     */
    public Duration formationTimeout() {
        return (Duration) value(ConfigKey.FORMATION_TIMEOUT);
    }

    /**
     * Setting {@link ConfigKey#CERT_VALIDITY}.
     *
     * @return how long the member certificates a seed of this process issues are valid; positive
     */
    public Duration certValidity() {
        return (Duration) value(ConfigKey.CERT_VALIDITY);
    }

    /**
     * Setting {@link ConfigKey#RPC_MAX_IN_FLIGHT}.
     *
     * @return the most remote calls to one rank in flight at once
     */
    public int rpcMaxInFlight() {
        return (Integer) value(ConfigKey.RPC_MAX_IN_FLIGHT);
    }

    /**
     * The same as {@link #recoveryPolicy()}.
     *
     * @return what a failed rank does to the survivors
     */
    public RecoveryPolicy policy() {
        return recoveryPolicy();
    }
}
