package io.nexar;

import io.nexar.internal.config.Units;
import io.nexar.internal.config.ValueFormatException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The one table of nexar's settings. Each constant declares, once, its key name, type, default, allowed values and
 * description; its environment variable and system property are derived from the key name. The table drives
 * parsing in {@link NexarConfig.Builder}, {@link NexarConfig#describe()} and the generated {@code docs/config.md}.
 *
 * <p>Adding a setting takes one constant here, one accessor of {@link NexarConfig} and one typed setter of its
 * {@link NexarConfig.Builder}, and regenerating {@code docs/config.md}; an enumerated setting declares its values as
 * a public enum whose constants' names, in lower case with dashes, are the setting's text.
 */
public enum ConfigKey {
    /** {@code p2p.timeout}, read into {@link NexarConfig#p2pTimeout()}. */
    P2P_TIMEOUT("p2p.timeout", Type.DURATION, "30s", greaterThan("0s"),
            "Deadline of one send or recv."),
    /** {@code close.timeout}, read into {@link NexarConfig#closeTimeout()}. */
    CLOSE_TIMEOUT("close.timeout", Type.DURATION, "5s", greaterThan("0s"),
            "How long close() waits for in-flight work before failing it."),
    /** {@code max.frame.size}, read into {@link NexarConfig#maxFrameBytes()}. */
    MAX_FRAME_SIZE("max.frame.size", Type.SIZE, "16MiB", between("4KiB", "1GiB"),
            "Largest frame accepted on the wire; checked before allocation."),
    /** {@code chunk.size}, read into {@link NexarConfig#chunkBytes()}. */
    CHUNK_SIZE("chunk.size", Type.SIZE, "4MiB", between("1KiB", "1GiB"),
            "Point-to-point payloads larger than this are split in chunks of this size; at most max.frame.size minus "
                    + NexarConfig.FRAME_HEADROOM_BYTES + "B."),
    /** {@code unexpected.max.bytes}, read into {@link NexarConfig#unexpectedMaxBytes()}. */
    UNEXPECTED_MAX_BYTES("unexpected.max.bytes", Type.SIZE, "256MiB", between("0B", "4194304TiB"),
            "Bound of the store of messages that arrived before their receive was posted; senders are back-pressured "
                    + "beyond it, and beyond half of it for a single sender (the others keep the rest). Collective"
                    + " messages that arrive before their operation or step have a store of their own with the same"
                    + " bound."),
    /** {@code collective.timeout}, read into {@link NexarConfig#collectiveTimeout()}. */
    COLLECTIVE_TIMEOUT("collective.timeout", Type.DURATION, "30s", greaterThan("0s"),
            "Deadline of one collective operation, from its call to its end on this rank."),
    /** {@code collective.deterministic}, read into {@link NexarConfig#collectiveDeterministic()}. */
    COLLECTIVE_DETERMINISTIC("collective.deterministic", Type.BOOLEAN, "false", any(),
            "Reductions fold every element in rank order, bit-identical to a sequential fold whatever the message size"
                    + " (see docs/collectives.md); overrides the allreduce algorithm."),
    /** {@code collective.verify}, read into {@link NexarConfig#collectiveVerify()}. */
    COLLECTIVE_VERIFY("collective.verify", Type.BOOLEAN, "false", any(),
            "Before each collective, every rank checks that all ranks called the same one (operation, count, type,"
                    + " reduce operator, root) with one small allgather; a difference fails every rank with"
                    + " CollectiveMismatchException naming the ranks and the field, before any data moves. For"
                    + " debugging: it adds one allgather's latency to each call (docs/failure-model.md)."),
    /** {@code hang.report.after}, read into {@link NexarConfig#hangReportAfter()}. */
    HANG_REPORT_AFTER("hang.report.after", Type.DURATION, "10s", between("0s", "24h"),
            "When a collective, a recv, a blocking send or a blocking probe has waited this long without progress,"
                    + " the rank asks the ranks it waits for what they are doing (over the control lane) and logs a"
                    + " report starting with \"nexar hang report:\" at WARN; its timeout error carries the report."
                    + " Keep it below collective.timeout and p2p.timeout. 0s: never."),
    /** {@code collective.probe.after}, read into {@link NexarConfig#collectiveProbeAfter()}. */
    COLLECTIVE_PROBE_AFTER("collective.probe.after", Type.DURATION, "1s", between("0s", "24h"),
            "When a collective's round has waited this long without progress (or an eighth of the operation's"
                    + " deadline, if less), it sends each rank it waits for one empty message of its call, so that"
                    + " ranks that disagree without exchanging data (a reduce or gather whose root differs) fail with"
                    + " CollectiveMismatchException instead of a timeout (docs/failure-model.md). 0s: never (such"
                    + " mismatches then end by timeout)."),
    /** {@code allreduce.algorithm}, read into {@link NexarConfig#allReduceAlgorithm()}. */
    ALLREDUCE_ALGORITHM("allreduce.algorithm", Type.ENUM, "auto",
            oneOf(AllReduceAlgorithm.class),
            "Allreduce algorithm; auto picks by size (allreduce.small.size, allreduce.large.size)."),
    /** {@code allreduce.small.size}, read into {@link NexarConfig#allReduceSmallBytes()}. */
    ALLREDUCE_SMALL_SIZE("allreduce.small.size", Type.SIZE, "64KiB", between("0B", "4194304TiB"),
            "Allreduce buffers up to this size use recursive doubling (up to 4KiB) or recursive halving-doubling (fewer "
                    + "steps), larger ones the ring."),
    /** {@code allreduce.large.size}, read into {@link NexarConfig#allReduceLargeBytes()}. */
    ALLREDUCE_LARGE_SIZE("allreduce.large.size", Type.SIZE, "1TiB", between("0B", "4194304TiB"),
            "Allreduce buffers of at least this size use the pipelined ring under auto; the default means in practice "
                    + "never (the plain ring reduces each chunk on arrival and measured as fast or faster)."),
    /** {@code pipeline.segment.size}, read into {@link NexarConfig#pipelineSegmentBytes()}. */
    PIPELINE_SEGMENT_SIZE("pipeline.segment.size", Type.SIZE, "1MiB", between("1KiB", "1GiB"),
            "Segment size of the pipelined ring (rounded down to whole elements)."),
    /** {@code broadcast.algorithm}, read into {@link NexarConfig#broadcastAlgorithm()}. */
    BROADCAST_ALGORITHM("broadcast.algorithm", Type.ENUM, "auto", oneOf(BroadcastAlgorithm.class),
            "Broadcast algorithm; auto picks by size (broadcast.large.size): the binomial tree, or the pipelined chain"
                    + " with more than 2 ranks."),
    /** {@code broadcast.large.size}, read into {@link NexarConfig#broadcastLargeBytes()}. */
    BROADCAST_LARGE_SIZE("broadcast.large.size", Type.SIZE, "512KiB", between("0B", "4194304TiB"),
            "Broadcast buffers of at least this size use a pipelined chain (more than 2 ranks), smaller ones the binomial "
                    + "tree."),
    /** {@code allgather.algorithm}, read into {@link NexarConfig#allGatherAlgorithm()}. */
    ALLGATHER_ALGORITHM("allgather.algorithm", Type.ENUM, "auto", oneOf(AllGatherAlgorithm.class),
            "Allgather algorithm; auto picks by size (allgather.small.size)."),
    /** {@code allgather.small.size}, read into {@link NexarConfig#allGatherSmallBytes()}. */
    ALLGATHER_SMALL_SIZE("allgather.small.size", Type.SIZE, "64KiB", between("0B", "4194304TiB"),
            "Allgather outputs up to this size use recursive doubling, larger ones the ring."),
    /** {@code bulk}, read into {@link NexarConfig#bulk()}. */
    BULK("bulk", Type.ENUM, "tls", oneOf(BulkMode.class),
            "Lanes for point-to-point and collective messages: tls (two TCP connections per pair, one per lane, with"
                    + " mutual TLS 1.3), tcp-plain (unencrypted, logged as a warning; isolated networks only) or quic"
                    + " (everything on QUIC)."),
    /** {@code bulk.threshold}, read into {@link NexarConfig#bulkThresholdBytes()}. */
    BULK_THRESHOLD("bulk.threshold", Type.SIZE, "0B", between("0B", "4194304TiB"),
            "Point-to-point and collective messages of at least this size take the TCP lanes (when bulk is tls or"
                    + " tcp-plain); smaller ones QUIC. 0: all of them (fewest thread hand-offs per message)."),
    /** {@code poll.window}, read into {@link NexarConfig#pollWindow()}. */
    POLL_WINDOW("poll.window", Type.DURATION, "2ms", between("0s", "1s"),
            "How long a thread waiting for a message reads the TCP lanes itself, yielding its core between reads,"
                    + " before it sleeps and the lane's reader thread takes over. 0s: never (every message is handed"
                    + " over by a reader thread, 25-35us per wake-up). Uses CPU while waiting, as Open MPI does; an"
                    + " idle process sleeps after it. 2ms rather than 200us: a 64 KiB allreduce of 4 ranks took half"
                    + " the time (rounds of a few hundred us outlast 200us), smaller and 64 MiB ones the same. A"
                    + " virtual thread reads once and sleeps (its yield gives no core back and costs an unmount)."),
    /** {@code tls.engine}, read into {@link NexarConfig#tlsEngine()}. */
    TLS_ENGINE("tls.engine", Type.ENUM, "auto", oneOf(TlsEngine.class),
            "TLS implementation of the TCP lanes: boringssl (netty-tcnative, native), jdk (the JDK's SSLEngine) or"
                    + " auto (boringssl when its native library loads on this platform, else jdk). Both ends of a pair"
                    + " may differ."),
    /** {@code bind.address}, read into {@link NexarConfig#bindAddress()}. */
    BIND_ADDRESS("bind.address", Type.ADDRESS, "auto", any(),
            "Address of the interface on which this process's QUIC and TCP-lane listeners listen (multi-NIC hosts,"
                    + " pods): an IP address or host name of this host, or a wildcard (0.0.0.0, ::) for every"
                    + " interface. auto: the seed's address when it is a loopback address, else the wildcard of the"
                    + " seed's address family."),
    /** {@code advertise.address}, read into {@link NexarConfig#advertiseAddress()}. */
    ADVERTISE_ADDRESS("advertise.address", Type.ADDRESS, "auto", any(),
            "Address the other members dial to reach this process, published in the peer table (NAT, a pod's"
                    + " address, multi-NIC hosts): an IP address, or a host name resolved when the process joins."
                    + " auto: bind.address when it names one address, else the address the seed sees this process"
                    + " enrol from."),
    /** {@code port.range}, read into {@link NexarConfig#portRange()}. */
    PORT_RANGE("port.range", Type.PORT_RANGE, "0", any(),
            "Ports of this process's QUIC (UDP) and TCP-lane listeners, for firewalls and NetworkPolicies: PORT or"
                    + " FIRST-LAST. Each listener takes the first free port of the range, binds it once before"
                    + " enrolment and keeps it; no free port fails the join with an error naming this setting. 0: a"
                    + " free port picked at random below the kernel's ephemeral range."),
    /** {@code heartbeat.interval}, read into {@link NexarConfig#heartbeatInterval()}. */
    HEARTBEAT_INTERVAL("heartbeat.interval", Type.DURATION, "1s", between("10ms", "1h"),
            "A heartbeat goes to each peer on the control lane this often, whatever else is sent (data can wait in a "
                    + "paused lane; a heartbeat never waits)."),
    /** {@code heartbeat.timeout}, read into {@link NexarConfig#heartbeatTimeout()}. */
    HEARTBEAT_TIMEOUT("heartbeat.timeout", Type.DURATION, "5s", between("20ms", "1h"),
            "A peer from which nothing (heartbeat or data) was received for this long is declared failed; must be "
                    + "greater than heartbeat.interval. A closed or reset connection counts at once."),
    /** {@code recovery.policy}, read into {@link NexarConfig#recoveryPolicy()}. */
    RECOVERY_POLICY("recovery.policy", Type.ENUM, "abort", oneOf(RecoveryPolicy.class),
            "What a failed rank does to the survivors: abort (every operation fails naming it), manual (operations "
                    + "that need it fail; the application calls shrink()) or automatic (the survivors agree on the "
                    + "failed set and continue on a rebuilt world communicator). See docs/failure-model.md."),
    /** {@code world.min.size}, read into {@link NexarConfig#worldMinSize()}. */
    WORLD_MIN_SIZE("world.min.size", Type.INT, "1", between("1", "65535"),
            "A recovery (shrink() or automatic) that would leave fewer ranks fails on every survivor instead."),
    /** {@code recovery.timeout}, read into {@link NexarConfig#recoveryTimeout()}. */
    RECOVERY_TIMEOUT("recovery.timeout", Type.DURATION, "30s", greaterThan("0s"),
            "Deadline of one agreement on the failed set (shrink() or an automatic recovery)."),
    /** {@code world.max.size}, read into {@link NexarConfig#worldMaxSize()}. */
    WORLD_MAX_SIZE("world.max.size", Type.INT, "65535", between("1", "65535"),
            "grow() admits waiting workers only while the world communicator has fewer ranks; at least world.min.size."),
    /** {@code join.elastic}, read into {@link NexarConfig#joinElastic()}. */
    JOIN_ELASTIC("join.elastic", Type.BOOLEAN, "false", any(),
            "Join a running cluster: the seed holds this worker until the members' next grow() admits it (set by "
                    + "`nexar worker --elastic`). See docs/failure-model.md."),
    /** {@code topology}, read into {@link NexarConfig#topology()}. */
    TOPOLOGY("topology", Type.TOPOLOGY, "full-mesh", any(),
            "Which ranks connect directly: full-mesh (every pair), k-regular:K (each rank has K neighbours, a ring"
                    + " plus chords) or hypercube (rank r to r XOR 2^i; the world size must be a power of two, else"
                    + " formation fails). Messages to other ranks are relayed along shortest paths"
                    + " (docs/protocol.md, docs/collectives.md). For now in-process and single-JVM clusters only:"
                    + " processes that join through a seed refuse a sparse topology."),
    /** {@code formation.timeout}, read into {@link NexarConfig#formationTimeout()}. */
    FORMATION_TIMEOUT("formation.timeout", Type.DURATION, "1m", greaterThan("0s"),
            "How long Nexar.join() (and a worker of `nexar launch`) waits for the seed, its enrolment and the"
                    + " connections to every peer before it fails with ClusterFormationException; a worker logs"
                    + " \"waiting for seed\" meanwhile."),
    /** {@code cert.validity}, read into {@link NexarConfig#certValidity()}. */
    CERT_VALIDITY("cert.validity", Type.DURATION, "24h", greaterThan("0s"),
            "How long the member certificates that a seed issues (`nexar launch`, rank 0 hosting the seed) are valid,"
                    + " never longer than its CA. Each member renews its certificate from the seed at two thirds of"
                    + " its life, without restarting the job; one not renewed by 80% is logged at WARN, and"
                    + " connections made after it expired (bulk lanes, growth) are refused, open ones go on"
                    + " (docs/security.md)."),
    /** {@code rpc.timeout}, read into {@link NexarConfig#rpcTimeout()}. */
    RPC_TIMEOUT("rpc.timeout", Type.DURATION, "30s", greaterThan("0s"),
            "Deadline of one remote call, from its call to its response; the caller then fails it with"
                    + " OperationTimeoutException and tells the callee, which interrupts the handler."),
    /** {@code rpc.max.in.flight}, read into {@link NexarConfig#rpcMaxInFlight()}. */
    RPC_MAX_IN_FLIGHT("rpc.max.in.flight", Type.INT, "64", between("1", "65536"),
            "Most remote calls from this process to one rank in flight at once (all communicators); a further call"
                    + " waits for one to end (back-pressure). A callee answers a caller that exceeds its own value with"
                    + " RpcException OVERLOADED.");

    /** The kind of value a key takes, which decides how its text is parsed and formatted. */
    public enum Type {
        /** A {@link Duration} with a required unit, for example {@code 500ms} or {@code 30s}. */
        DURATION("a duration"),
        /** A number of bytes ({@code long}), for example {@code 64KiB} or {@code 16MiB}; a bare number is bytes. */
        SIZE("a size"),
        /** A 32-bit integer ({@code int}), for example {@code 8}. */
        INT("an integer"),
        /** {@code true} or {@code false}, case-insensitive. */
        BOOLEAN("a boolean"),
        /** One of the key's {@link ConfigKey#choices()}, case-insensitive; the value is a constant of its enum. */
        ENUM("a choice"),
        /**
         * A network address as text ({@link String}): an IPv4 or IPv6 literal (brackets allowed), a host name, or
         * {@code auto}; host names are resolved where the address is used, not when it is parsed.
         */
        ADDRESS("an address"),
        /** A {@link PortRange}: {@code 0} (any), {@code PORT} or {@code FIRST-LAST}. */
        PORT_RANGE("a port range"),
        /** A {@link Topology}: {@code full-mesh}, {@code k-regular:K} or {@code hypercube}. */
        TOPOLOGY("a topology");

        /** A host name: dot-separated labels of letters, digits and inner dashes. */
        private static final java.util.regex.Pattern HOST_NAME = java.util.regex.Pattern.compile(
                "(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                            + "(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\\.?");

        /**
         * {@code auto}, an IP literal (an IPv6 one may be in brackets, which are dropped) or a host name; no name is
         * looked up here.
         */
        private static String parseAddress(String text) {
            String s = text.strip();
            if (s.equalsIgnoreCase("auto")) {
                return "auto";
            }
            if (s.startsWith("[") && s.endsWith("]")) {
                s = s.substring(1, s.length() - 1);
            }
            boolean literal = s.indexOf(':') >= 0 || s.matches("[0-9.]+");
            if (literal) {
                try {
                    java.net.InetAddress.ofLiteral(s);
                    return s;
                } catch (IllegalArgumentException e) {
                    // not a literal: reported below
                }
            } else if (HOST_NAME.matcher(s).matches()) {
                return s;
            }
            throw new ValueFormatException(text, "an IP address such as 10.0.0.5 or fd00::5, a host name, or auto", false);
        }

        private final String noun;

        Type(String noun) {
            this.noun = noun;
        }

        /** {@return the name used in {@code docs/config.md}, for example {@code duration}} */
        public String displayName() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        /**
         * Parses text into this type's value: {@link Duration}, {@link Long} bytes, {@link Integer}, {@link Boolean}
         * or, for {@link #ENUM}, the constant of {@code constants} whose {@link ConfigKey#choiceKey key} matches.
         */
        Object parse(String text, List<? extends Enum<?>> constants) {
            return switch (this) {
                case DURATION -> Units.parseDuration(text);
                case SIZE -> Units.parseSize(text);
                case INT -> {
                    try {
                        yield Integer.parseInt(text.strip());
                    } catch (NumberFormatException e) {
                        throw new ValueFormatException(text, "an integer such as 8", false);
                    }
                }
                case BOOLEAN -> switch (text.strip().toLowerCase(Locale.ROOT)) {
                    case "true" -> Boolean.TRUE;
                    case "false" -> Boolean.FALSE;
                    default -> throw new ValueFormatException(text, "true or false", false);
                };
                case ENUM -> constants.stream().filter(c -> choiceKey(c).equalsIgnoreCase(text.strip()))
                        .findFirst().orElseThrow(() -> new ValueFormatException(text, "one of "
                                + String.join(", ", constants.stream().map(ConfigKey::choiceKey).toList()), false));
                case ADDRESS -> parseAddress(text);
                case PORT_RANGE -> {
                    try {
                        yield PortRange.parse(text);
                    } catch (IllegalArgumentException e) {
                        throw new ValueFormatException(text, PortRange.EXPECTED, false);
                    }
                }
                case TOPOLOGY -> {
                    try {
                        yield Topology.parse(text);
                    } catch (IllegalArgumentException e) {
                        throw new ValueFormatException(text, Topology.EXPECTED, false);
                    }
                }
            };
        }

        /** Formats a value of this type so that {@link #parse} reads it back. */
        String format(Object value) {
            return switch (this) {
                case DURATION -> Units.formatDuration((Duration) value);
                case SIZE -> Units.formatSize((Long) value);
                case INT, BOOLEAN -> value.toString();
                case ENUM -> choiceKey((Enum<?>) value);
                case ADDRESS, PORT_RANGE, TOPOLOGY -> value.toString();
            };
        }

        /** The bounds of the type itself; keys can narrow them. */
        private Object typeMax() {
            return switch (this) {
                case DURATION -> Units.MAX_DURATION;
                case SIZE -> Units.MAX_SIZE_BYTES;
                case INT -> Integer.MAX_VALUE;
                case BOOLEAN, ENUM, ADDRESS, PORT_RANGE, TOPOLOGY -> null;
            };
        }
    }

    /** How a key's allowed values are declared in the table; bounds are text in the key's type. */
    private record Allowed(String min, boolean minExclusive, String max, List<? extends Enum<?>> constants) {
    }

    private final String key;
    private final Type type;
    private final String defaultValue;
    private final String description;
    private final List<? extends Enum<?>> constants;
    private final List<String> choices;
    private final Object min;
    private final boolean minExclusive;
    private final Object max;
    private final boolean maxDeclared;
    private final Object parsedDefault;

    ConfigKey(String key, Type type, String defaultValue, Allowed allowed, String description) {
        this.key = key;
        this.type = type;
        this.defaultValue = defaultValue;
        this.description = description;
        this.constants = allowed.constants();
        this.choices = constants.stream().map(ConfigKey::choiceKey).toList();
        this.min = allowed.min() == null ? null : type.parse(allowed.min(), constants);
        this.minExclusive = allowed.minExclusive();
        this.maxDeclared = allowed.max() != null;
        this.max = maxDeclared ? type.parse(allowed.max(), constants) : type.typeMax();
        this.parsedDefault = type.parse(defaultValue, constants);
    }

    /** Values strictly above {@code min}. */
    private static Allowed greaterThan(String min) {
        return new Allowed(min, true, null, List.of());
    }

    /** Any value of the type (booleans). */
    private static Allowed any() {
        return new Allowed(null, false, null, List.of());
    }

    /** One of the constants of an enum, spelt as {@link #choiceKey}. */
    private static Allowed oneOf(Class<? extends Enum<?>> type) {
        return new Allowed(null, false, null, List.of(type.getEnumConstants()));
    }

    /**
     * The text of an enumerated setting's value: the constant's name in lower case with dashes, for example
     * {@code halving-doubling} for {@link AllReduceAlgorithm#HALVING_DOUBLING}.
     */
    static String choiceKey(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** Values from {@code min} to {@code max}, both included. */
    private static Allowed between(String min, String max) {
        return new Allowed(min, false, max, List.of());
    }

    /**
     * Looks a key up by its name.
     *
     * @param key a key name such as {@code p2p.timeout}
     * @return the key, or empty if there is none of that name
     */
    public static Optional<ConfigKey> byKey(String key) {
        for (var k : values()) {
            if (k.key.equals(key)) {
                return Optional.of(k);
            }
        }
        return Optional.empty();
    }

    /** {@return the key name, lower case with dots, for example {@code p2p.timeout}} */
    public String key() {
        return key;
    }

    /** {@return the environment variable: {@code NEXAR_} and the key in upper snake case ({@code NEXAR_P2P_TIMEOUT})} */
    public String envVar() {
        return "NEXAR_" + key.replace('.', '_').toUpperCase(Locale.ROOT);
    }

    /** {@return the system property: {@code nexar.} and the key ({@code nexar.p2p.timeout})} */
    public String systemProperty() {
        return "nexar." + key;
    }

    /**
     * The name a command-line flag for this key takes: {@code --} and the key with dashes ({@code --p2p-timeout}).
     * The {@code nexar} commands have no flag per key (their workers read the environment); a program with its own
     * command line can use this name.
     *
     * @return the flag, for example {@code --p2p-timeout}
     */
    public String flag() {
        return "--" + key.replace('.', '-');
    }

    /** {@return the kind of value this key takes} */
    public Type type() {
        return type;
    }

    /** {@return the built-in default as text, for example {@code 30s}} */
    public String defaultValue() {
        return defaultValue;
    }

    /** {@return the values an {@link Type#ENUM} key accepts, as their text (for example {@code tcp-plain}); empty for other types} */
    public List<String> choices() {
        return choices;
    }

    /**
     * The allowed values in words, for example {@code 4KiB to 1GiB}, {@code > 0s} or {@code ring, tree}; for
     * {@code docs/config.md}.
     *
     * @return the allowed values in words
     */
    public String allowed() {
        return switch (type) {
            case BOOLEAN -> "true, false";
            case TOPOLOGY -> "full-mesh, k-regular:K (K from 2 to " + Topology.MAX_DEGREE + "), hypercube";
            case ENUM -> String.join(", ", choices);
            case ADDRESS -> "auto, an IP address, a host name";
            case PORT_RANGE -> "0, PORT, FIRST-LAST (1 to 65535)";
            case DURATION, SIZE, INT -> {
                if (min == null) {
                    yield maxDeclared ? "<= " + type.format(max) : "any";
                }
                if (!maxDeclared) {
                    yield (minExclusive ? "> " : ">= ") + type.format(min);
                }
                yield minExclusive ? "> " + type.format(min) + ", <= " + type.format(max)
                        : type.format(min) + " to " + type.format(max);
            }
        };
    }

    /** {@return one line on what the setting does} */
    public String description() {
        return description;
    }

    /** The key name, as {@link #key()}. */
    @Override
    public String toString() {
        return key;
    }

    /** The default parsed into this key's type. */
    Object parsedDefault() {
        return parsedDefault;
    }

    /**
     * Parses a value of this key and checks it is allowed.
     *
     * @param setting the name the user wrote the value under, for messages
     * @param text the value as written
     * @throws InvalidConfigurationException if the text is malformed or out of range
     */
    Object parse(String setting, String text) {
        Object value;
        try {
            value = type.parse(text, constants);
        } catch (ValueFormatException e) {
            // an overflow is above any declared bound: say the bound, which is what the user can act on
            throw new InvalidConfigurationException(setting, text,
                    e.tooLarge() && maxDeclared ? aboveMaximum() : e.expected());
        }
        check(setting, text, value);
        return value;
    }

    /**
     * Checks a typed value is allowed for this key.
     *
     * @param setting the name the user wrote the value under, for messages
     * @param text the value as the user wrote it, for messages
     * @throws InvalidConfigurationException if it is out of range
     */
    void check(String setting, String text, Object value) {
        if (min != null) {
            int c = compare(value, min);
            if (c < 0 || c == 0 && minExclusive) {
                throw new InvalidConfigurationException(setting, text, belowMinimum());
            }
        }
        if (max != null && compare(value, max) > 0) {
            throw new InvalidConfigurationException(setting, text, aboveMaximum());
        }
    }

    /** What a value below the minimum should have been, completing "expected ...". */
    private String belowMinimum() {
        return maxDeclared ? inRange() : type.noun + (minExclusive ? " greater than " : " of at least ")
                + type.format(min);
    }

    /** What a value above the maximum should have been, completing "expected ...". */
    private String aboveMaximum() {
        // the type's own maximum goes unmentioned until it is exceeded
        return min != null && maxDeclared ? inRange() : type.noun + " of at most " + type.format(max);
    }

    /** A value within both declared bounds, for example {@code a size between 4KiB and 1GiB}. */
    private String inRange() {
        return minExclusive
                ? type.noun + " greater than " + type.format(min) + " and at most " + type.format(max)
                : type.noun + " between " + type.format(min) + " and " + type.format(max);
    }

    @SuppressWarnings("unchecked")
    private static int compare(Object a, Object b) {
        return ((Comparable<Object>) a).compareTo(b);
    }
}
