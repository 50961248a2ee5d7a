package io.nexar.benchmarks;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nexar.Communicator;
import io.nexar.CommunicatorClosedException;
import io.nexar.DataType;
import io.nexar.NexarConfig;
import io.nexar.NexarException;
import io.nexar.ReduceOp;
import io.nexar.micrometer.NexarMetrics;
import io.nexar.testkit.LocalCluster;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
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
    private LocalCluster cluster;
    private Arena arena;
    private MemorySegment data;
    private long count;
    private final List<Thread> others = new ArrayList<>();

    /** Binds the metrics (or not), starts the cluster and the other ranks' loops. */
    @Setup
    public void setUp() {
        if (binding.equals("micrometer")) {
            metrics = NexarMetrics.bindTo(new SimpleMeterRegistry());
        }
        cluster = LocalCluster.start(RANKS, NexarConfig.defaults());
        arena = Arena.ofShared();
        count = BYTES / DataType.F32.byteSize();
        data = arena.allocate(BYTES, 64);
        for (int rank = 1; rank < RANKS; rank++) {
            Communicator c = cluster.communicator(rank);
            MemorySegment own = arena.allocate(BYTES, 64);
            others.add(Thread.ofPlatform().daemon().name("bench-rank-" + rank).start(() -> loop(c, own)));
        }
    }

    private void loop(Communicator c, MemorySegment own) {
        try {
            while (true) {
                c.allReduce(own, DataType.F32, count, ReduceOp.SUM);
            }
        } catch (CommunicatorClosedException e) {
            // The benchmark ended.
        } catch (NexarException e) {
            // Rank 0 closed while this rank waited: also the end.
        }
    }

    /** Closes the cluster (which ends the other ranks' loops) and the binding. */
    @TearDown
    public void tearDown() throws InterruptedException {
        cluster.close();
        for (Thread t : others) {
            t.join(10_000);
        }
        arena.close();
        if (metrics != null) {
            metrics.close();
        }
    }

    /** One allReduce of 8 B over 4 ranks, seen from rank 0. */
    @Benchmark
    public void allReduce() {
        cluster.communicator(0).allReduce(data, DataType.F32, count, ReduceOp.SUM);
    }
}
