package io.nexar.benchmarks;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nexar.Communicator;
import io.nexar.DataType;
import io.nexar.NexarConfig;
import io.nexar.NexarException;
import io.nexar.ReduceOp;
import io.nexar.micrometer.NexarMetrics;
import io.nexar.testkit.LocalCluster;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import jdk.jfr.consumer.RecordingStream;

/**
 * The cost of {@link NexarMetrics} in wall time and in CPU time per call (docs/observability.md): 8 B allReduce
 * (F32 SUM) on a 4-rank {@link LocalCluster}, rank 0 on this thread, the others looping on platform threads, as
 * {@link MetricsBindingBenchmark}. CPU time is the whole process's (every rank, the JFR stream's thread, GC, JIT)
 * divided by rank 0's calls. {@code jfr} is the JFR side alone (the same events streamed to an action that does
 * nothing; {@code jfr-fields} reads the fields the binding reads), to tell JFR's share of the cost from Micrometer's;
 * {@code micrometer-plain} binds with no percentiles and no histogram. Run one JVM per binding, alternating, warm
 * (for example 20 s, after its 10 s of warm-up):
 *
 * <pre>
 * java -cp nexar-benchmarks/target/benchmarks.jar io.nexar.benchmarks.MetricsCost BINDING [SECONDS]
 * BINDING: none | jfr | jfr-fields | micrometer | micrometer-plain
 * </pre>
 */
public final class MetricsCost {
    private static final int RANKS = 4;

    private static volatile long sink;

    private MetricsCost() {
    }

    /**
     * Prints {@code binding=B calls=N wall_ns_per_call=W cpu_ns_per_call=C}, with a binding also the calls the
     * registry counted (all ranks, warm-up included) and the stream thread's CPU time per rank-0 call.
     */
    public static void main(String[] args) throws InterruptedException {
        String binding = args.length > 0 ? args[0] : "none";
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 5;
        var registry = new SimpleMeterRegistry();
        NexarMetrics metrics = switch (binding) {
            case "micrometer" -> NexarMetrics.bindTo(registry);
            // counts and sums only: no percentiles, no histogram
            case "micrometer-plain" -> NexarMetrics.builder().percentiles().percentileHistogram(false).bindTo(registry);
            default -> null;
        };
        RecordingStream bare = switch (binding) {
            case "jfr" -> bareStream(e -> { });
            // JFR plus reading the fields the binding reads, into a sink
            case "jfr-fields" -> bareStream(e -> sink += e.getString("operation").length()
                    + e.getString("outcome").length() + e.getLong(e.getEventType().getName().endsWith("Collective")
                    ? "bytesSent" : "bytes") + e.getDuration().toNanos());
            default -> null;
        };
        if (metrics == null && bare == null && !binding.equals("none")) {
            throw new IllegalArgumentException(
                    "binding none, jfr, jfr-fields, micrometer or micrometer-plain, not " + binding);
        }
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        List<Thread> others = new ArrayList<>();
        long calls = 0;
        long wall;
        long cpu;
        long streamCpu;
        try (var cluster = LocalCluster.start(RANKS, NexarConfig.defaults()); var arena = Arena.ofShared()) {
            for (int rank = 1; rank < RANKS; rank++) {
                Communicator c = cluster.communicator(rank);
                MemorySegment own = arena.allocate(8, 64);
                others.add(Thread.ofPlatform().daemon().name("rank-" + rank).start(() -> loop(c, own)));
            }
            Communicator c0 = cluster.communicator(0);
            MemorySegment data = arena.allocate(8, 64);
            long warmEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(Math.max(2, seconds / 2));
            while (System.nanoTime() < warmEnd) {
                c0.allReduce(data, DataType.F32, 2, ReduceOp.SUM);
            }
            long stream0 = streamCpuNanos();
            long cpu0 = os.getProcessCpuTime();
            long t0 = System.nanoTime();
            long end = t0 + TimeUnit.SECONDS.toNanos(seconds);
            while (System.nanoTime() < end) {
                c0.allReduce(data, DataType.F32, 2, ReduceOp.SUM);
                calls++;
            }
            wall = System.nanoTime() - t0;
            cpu = os.getProcessCpuTime() - cpu0;
            streamCpu = streamCpuNanos() - stream0;
        }
        for (Thread t : others) {
            t.join(10_000);
        }
        String recorded = "";
        if (bare != null) {
            bare.close();
            recorded = " stream_thread_cpu_ns_per_call=" + streamCpu / calls;
        }
        if (metrics != null) {
            metrics.close();
            var timer = registry.find(NexarMetrics.COLLECTIVE).tags("operation", "allReduce", "outcome", "ok").timer();
            recorded = " recorded=" + (timer == null ? 0 : timer.count()) + " stream_thread_cpu_ns_per_call="
                    + streamCpu / calls;
        }
        System.out.printf(Locale.ROOT, "binding=%s calls=%d wall_ns_per_call=%d cpu_ns_per_call=%d%s%n", binding,
                calls, wall / calls, cpu / calls, recorded);
    }

    /** The JFR side alone: the same events enabled with no threshold, streamed to an action that does nothing. */
    private static RecordingStream bareStream(java.util.function.Consumer<jdk.jfr.consumer.RecordedEvent> action) {
        var stream = new RecordingStream();
        for (String name : new String[] {"io.nexar.Collective", "io.nexar.PointToPoint", "io.nexar.PeerFailure",
            "io.nexar.Membership", "io.nexar.Connection"}) {
            stream.enable(name).withThreshold(Duration.ZERO).withoutStackTrace();
        }
        stream.setReuse(true);
        stream.setOrdered(false);
        stream.onEvent(action);
        stream.startAsync();
        return stream;
    }

    /** CPU time of the JFR stream's dispatch thread ("JFR Event Stream ..."), 0 if there is none. */
    private static long streamCpuNanos() {
        var threads = ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("JFR Event Stream")) {
                sum += Math.max(0, threads.getThreadCpuTime(t.threadId()));
            }
        }
        return sum;
    }

    private static void loop(Communicator c, MemorySegment own) {
        try {
            while (true) {
                c.allReduce(own, DataType.F32, 2, ReduceOp.SUM);
            }
        } catch (NexarException e) {
            // rank 0 closed the cluster: the end
        }
    }
}
