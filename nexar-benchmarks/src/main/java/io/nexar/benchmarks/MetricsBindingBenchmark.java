package io.nexar.benchmarks;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nexar.micrometer.NexarMetrics;
import io.nexar.testkit.LocalCluster;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The cost of {@link NexarMetrics} (docs/observability.md): an 8 B allReduce (F32 SUM) on a 4-rank
 * {@link LocalCluster}, as {@link InProcessAllReduceBenchmark}, with no binding ({@code none}) and with
 * {@code NexarMetrics.bindTo(new SimpleMeterRegistry())} ({@code micrometer}: every call commits a JFR event that the
 * stream's thread turns into a timer and a summary update). Rank 0 is the benchmark thread.
 *
 * <pre>
 * java -jar nexar-benchmarks/target/benchmarks.jar MetricsBindingBenchmark -f 3 -wi 3 -i 5 -w 2s -r 2s
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MetricsBindingBenchmark {
    private static final int RANKS = 4;
    private static final int BYTES = 8;

    /** {@code none} or {@code micrometer}. */
    @Param({"none", "micrometer"})
    public String binding;

    private NexarMetrics metrics;
    private BusyCluster cluster;

    /** Binds the metrics (or not), starts the cluster and the other ranks' loops. */
    @Setup
    public void setUp() {
        if (binding.equals("micrometer")) {
            metrics = NexarMetrics.bindTo(new SimpleMeterRegistry());
        }
        cluster = new BusyCluster(RANKS, BYTES);
    }

    /** Closes the cluster (which ends the other ranks' loops) and the binding. */
    @TearDown
    public void tearDown() throws InterruptedException {
        cluster.close();
        if (metrics != null) {
            metrics.close();
        }
    }

    /** One allReduce of 8 B over 4 ranks, seen from rank 0. */
    @Benchmark
    public void allReduce() {
        cluster.allReduceOnRankZero();
    }
}
