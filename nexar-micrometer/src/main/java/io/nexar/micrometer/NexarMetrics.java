package io.nexar.micrometer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingStream;

/**
 * Records nexar's JDK Flight Recorder events into a Micrometer {@link MeterRegistry}: a {@link RecordingStream} in
 * this process enables the events ({@code io.nexar.Collective}, {@code io.nexar.PointToPoint}, {@code
 * io.nexar.PeerFailure}, {@code io.nexar.Membership}, {@code io.nexar.Connection}) with no threshold, so that every
 * call is counted, and a daemon thread of the JDK turns each one into meters:
 *
 * <pre>{@code
 * MeterRegistry registry = ...; // Prometheus, OTLP, JMX, ...
 * try (NexarMetrics metrics = NexarMetrics.bindTo(registry)) {
 *     ... // run nexar
 * }
 * }</pre>
 *
 * <p>Meters (docs/observability.md): {@value #COLLECTIVE} (timer; tags {@code operation}, {@code outcome}),
 * {@value #COLLECTIVE_SENT} (bytes sent per call; {@code operation}), {@value #P2P} (timer; {@code operation} =
 * send or recv, {@code outcome}), {@value #P2P_PAYLOAD} (bytes per call; {@code operation}), {@value #PEER_FAILURES}
 * (counter; {@code reason} = failed or left), {@value #MEMBERSHIP_CHANGES} (timer; {@code kind} = shrink, recovery or
 * grow) and {@value #CONNECTIONS} (counter; {@code state} = established or lost, {@code lane}). {@code outcome} is
 * {@code ok} or the exception's simple class name. Tags are bounded: no sequence numbers, peers or messages; the
 * communicator id and the rank are opt-in ({@link Builder#communicatorTag}, {@link Builder#rankTag}).
 *
 * <p><b>Latency.</b> The JDK flushes its event buffers to the stream once a second, so a call shows in the registry
 * about 1 s after it ended (at most about 2 s); {@link #close()} first records every event committed before it.
 *
 * <p><b>Cost.</b> Each nexar call then commits an event and the stream's thread parses it and updates the meters:
 * about 2-4 us of CPU per call and rank, measured on a loaded 2-core machine (docs/observability.md). With no binding
 * (and no other recording) the events cost nothing.
 */
public final class NexarMetrics implements AutoCloseable {
    /** Timer of collective operations. */
    public static final String COLLECTIVE = "nexar.collective";
    /** Distribution of the bytes each collective call sent. */
    public static final String COLLECTIVE_SENT = "nexar.collective.sent";
    /** Timer of blocking point-to-point send and recv calls. */
    public static final String P2P = "nexar.p2p";
    /** Distribution of the payload bytes of each point-to-point call. */
    public static final String P2P_PAYLOAD = "nexar.p2p.payload";
    /** Counter of peers this process learned failed or left. */
    public static final String PEER_FAILURES = "nexar.peer.failures";
    /** Timer of shrinks, automatic recoveries and grows. */
    public static final String MEMBERSHIP_CHANGES = "nexar.membership.changes";
    /** Counter of connections to peers set up or lost. */
    public static final String CONNECTIONS = "nexar.connections";

    static final String COLLECTIVE_EVENT = "io.nexar.Collective";
    static final String P2P_EVENT = "io.nexar.PointToPoint";
    static final String PEER_FAILURE_EVENT = "io.nexar.PeerFailure";
    static final String MEMBERSHIP_EVENT = "io.nexar.Membership";
    static final String CONNECTION_EVENT = "io.nexar.Connection";

    private final MeterRegistry registry;
    private final Builder options;
    private final RecordingStream stream;
    // Only the stream's thread touches these: JFR runs the actions of one stream one at a time.
    // Keys of the per-call meters are plain fields (no Tags built per event); the rare events key on their Tags.
    private final Map<Key, Timer> timers = new HashMap<>();
    private final Map<Key, DistributionSummary> summaries = new HashMap<>();
    private final Map<Tags, Timer> membershipTimers = new HashMap<>();
    private final Map<Tags, Counter> counters = new HashMap<>();
    private boolean closed;

    private NexarMetrics(MeterRegistry registry, Builder options) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.options = options;
        this.stream = new RecordingStream();
        try {
            stream.enable(COLLECTIVE_EVENT).withThreshold(Duration.ZERO).withoutStackTrace();
            stream.enable(P2P_EVENT).withThreshold(Duration.ZERO).withoutStackTrace();
            stream.enable(PEER_FAILURE_EVENT).withoutStackTrace();
            stream.enable(MEMBERSHIP_EVENT).withThreshold(Duration.ZERO).withoutStackTrace();
            stream.enable(CONNECTION_EVENT).withThreshold(Duration.ZERO).withoutStackTrace();
            stream.setReuse(true); // the actions copy what they need: one RecordedEvent object for all
            stream.setOrdered(false); // counts do not need the events sorted by time
            stream.onEvent(COLLECTIVE_EVENT, this::onCollective);
            stream.onEvent(P2P_EVENT, this::onPointToPoint);
            stream.onEvent(PEER_FAILURE_EVENT, this::onPeerFailure);
            stream.onEvent(MEMBERSHIP_EVENT, this::onMembership);
            stream.onEvent(CONNECTION_EVENT, this::onConnection);
            stream.startAsync();
        } catch (RuntimeException e) {
            stream.close();
            throw e;
        }
    }

    /**
     * Starts recording nexar's events into {@code registry} with the default options (no communicator or rank
     * tag).
     *
     * @param registry the registry the meters are registered in
     * @return the running binding; close it to stop recording
     * @throws IllegalStateException if this JVM has no Flight Recorder or cannot create its repository
     */
    public static NexarMetrics bindTo(MeterRegistry registry) {
        return builder().bindTo(registry);
    }

    /**
     * Options: tags beyond the defaults, percentiles.
     *
     * @return a builder with the default options
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Records every event committed before this call, then stops the stream. The meters stay in the registry.
     * Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            stream.stop(); // waits until the stream's thread consumed every event recorded so far
        } catch (IllegalStateException e) {
            // already stopped (the JVM is shutting down): nothing left to drain
        } finally {
            stream.close();
        }
    }

    private void onCollective(RecordedEvent e) {
        String operation = e.getString("operation");
        timers.computeIfAbsent(key(COLLECTIVE, operation, outcome(e.getString("outcome")), e),
                k -> timer("collective operations on this process", k))
                .record(e.getDuration());
        summaries.computeIfAbsent(key(COLLECTIVE_SENT, operation, null, e),
                k -> summary("bytes each collective call sent from this rank", k))
                .record(e.getLong("bytesSent"));
    }

    private void onPointToPoint(RecordedEvent e) {
        String operation = e.getString("operation");
        timers.computeIfAbsent(key(P2P, operation, outcome(e.getString("outcome")), e),
                k -> timer("blocking send and recv calls on this process", k))
                .record(e.getDuration());
        summaries.computeIfAbsent(key(P2P_PAYLOAD, operation, null, e),
                k -> summary("payload bytes of each send and recv", k))
                .record(e.getLong("bytes"));
    }

    private void onPeerFailure(RecordedEvent e) {
        String reason = e.getString("reason");
        // a polite leave is "left (...)" (GoodbyeReason); everything else is a failure
        String kind = reason != null && reason.startsWith("left (") ? "left" : "failed";
        counters.computeIfAbsent(Tags.of("meter", PEER_FAILURES, "reason", kind),
                k -> Counter.builder(PEER_FAILURES).description("peers this process learned failed or left")
                        .tags("reason", kind).register(registry))
                .increment();
    }

    private void onMembership(RecordedEvent e) {
        Tags tags = Tags.of("kind", String.valueOf(e.getString("kind")));
        if (options.communicatorTag) {
            tags = tags.and("communicator", Integer.toString(e.getInt("communicator")));
        }
        membershipTimers.computeIfAbsent(tags,
                k -> Timer.builder(MEMBERSHIP_CHANGES).description("shrinks, automatic recoveries and grows").tags(k)
                        .register(registry))
                .record(e.getDuration());
    }

    private void onConnection(RecordedEvent e) {
        Tags tags = Tags.of("state", String.valueOf(e.getString("state")), "lane", String.valueOf(e.getString("lane")));
        counters.computeIfAbsent(tags.and("meter", CONNECTIONS),
                k -> Counter.builder(CONNECTIONS).description("connections to peers set up or lost").tags(tags)
                        .register(registry))
                .increment();
    }

    /** The meter of a collective or point-to-point event; the communicator and rank are 0 unless tagged. */
    private Key key(String name, String operation, String outcome, RecordedEvent e) {
        return new Key(name, operation, outcome, options.communicatorTag ? e.getInt("communicator") : 0,
                options.rankTag ? e.getInt("rank") : 0);
    }

    /** Tags of a collective or point-to-point meter: operation, outcome (if not null), opt-in communicator, rank. */
    private Tags tags(Key key) {
        Tags tags = Tags.of("operation", String.valueOf(key.operation));
        if (key.outcome != null) {
            tags = tags.and("outcome", key.outcome);
        }
        if (options.communicatorTag) {
            tags = tags.and("communicator", Integer.toString(key.communicator));
        }
        if (options.rankTag) {
            tags = tags.and("rank", Integer.toString(key.rank));
        }
        return tags;
    }

    private Timer timer(String description, Key key) {
        var builder = Timer.builder(key.name).description(description).tags(tags(key));
        if (options.percentiles.length > 0) {
            builder.publishPercentiles(options.percentiles);
        }
        return builder.publishPercentileHistogram(options.histogram).register(registry);
    }

    private DistributionSummary summary(String description, Key key) {
        return DistributionSummary.builder(key.name).description(description).baseUnit("bytes").tags(tags(key))
                .register(registry);
    }

    /**
     * The outcome tag: "ok", or the exception's simple class name ("PeerFailedException"), never its message.
     */
    static String outcome(String field) {
        if (field == null || field.equals("ok")) {
            return "ok";
        }
        int colon = field.indexOf(':');
        return colon < 0 ? field : field.substring(0, colon);
    }

    /** A per-call meter: its name and the values of its tags. */
    private record Key(String name, String operation, String outcome, int communicator, int rank) {
    }

    /** Options of a binding. */
    public static final class Builder {
        private boolean communicatorTag;
        private boolean rankTag;
        private boolean histogram = true;
        private double[] percentiles = {0.5, 0.9, 0.99};

        private Builder() {
        }

        /**
         * Adds a {@code communicator} tag (the communicator's id) to the collective, point-to-point and membership
         * meters. Off by default: every {@code split()} and {@code dup()} makes a new id, so a program that makes
         * communicators in a loop would make meters without bound.
         *
         * @param enabled true to add the tag
         * @return this builder
         */
        public Builder communicatorTag(boolean enabled) {
            this.communicatorTag = enabled;
            return this;
        }

        /**
         * Adds a {@code rank} tag (the rank in the operation's communicator) to the collective and point-to-point
         * meters. Off by default: with one rank per process a common tag ({@code registry.config().commonTags})
         * says the same once; useful when one JVM runs several ranks (LocalCluster).
         *
         * @param enabled true to add the tag
         * @return this builder
         */
        public Builder rankTag(boolean enabled) {
            this.rankTag = enabled;
            return this;
        }

        /**
         * Whether the timers publish a percentile histogram (buckets, for Prometheus' {@code histogram_quantile}).
         * On by default.
         *
         * @param enabled true to publish the histogram
         * @return this builder
         */
        public Builder percentileHistogram(boolean enabled) {
            this.histogram = enabled;
            return this;
        }

        /**
         * Percentiles the timers compute in this process (default 0.5, 0.9, 0.99); none for an empty array.
         *
         * @param percentiles the percentiles, each in [0, 1]
         * @return this builder
         */
        public Builder percentiles(double... percentiles) {
            for (double p : percentiles) {
                if (!(p >= 0 && p <= 1)) {
                    throw new IllegalArgumentException("a percentile is between 0 and 1, not " + p);
                }
            }
            this.percentiles = Arrays.copyOf(percentiles, percentiles.length);
            return this;
        }

        /**
         * Starts recording into {@code registry}; close the result to stop.
         *
         * @param registry the registry the meters are registered in
         * @return the running binding; close it to stop recording
         */
        public NexarMetrics bindTo(MeterRegistry registry) {
            Builder copy = new Builder();
            copy.communicatorTag = communicatorTag;
            copy.rankTag = rankTag;
            copy.histogram = histogram;
            copy.percentiles = percentiles.clone();
            return new NexarMetrics(registry, copy);
        }
    }
}
