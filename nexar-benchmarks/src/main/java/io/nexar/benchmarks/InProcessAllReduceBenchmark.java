package io.nexar.benchmarks;

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
 * The schedule executor on the in-process transport: one allReduce (F32 SUM, in place, buffers reused) on a
 * {@link LocalCluster}, with no network in the way. The benchmark thread is rank 0; ranks 1..n-1 run the same
 * allReduce in a loop on their own platform threads, so each measured call is one whole collective. Closing the
 * cluster at the end fails their pending call, which ends them. Run with {@code -prof gc} for the allocation per
 * operation (all threads).
 *
 * <pre>
 * java -jar nexar-benchmarks/target/benchmarks.jar InProcessAllReduceBenchmark -f 1 -wi 2 -i 3 -w 1s -r 1s -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class InProcessAllReduceBenchmark {
    /** Buffer size in bytes. */
    @Param({"8", "1048576"})
    public int bytes;

    /** Number of ranks. */
    @Param({"2", "4"})
    public int ranks;

    private BusyCluster cluster;

    /** Starts the cluster and the other ranks' loops. */
    @Setup
    public void setUp() {
        cluster = new BusyCluster(ranks, bytes);
    }

    /** Closes the cluster, which ends the other ranks' loops. */
    @TearDown
    public void tearDown() throws InterruptedException {
        cluster.close();
    }

    /** One allReduce of {@code bytes} over all ranks, seen from rank 0. */
    @Benchmark
    public void allReduce() {
        cluster.allReduceOnRankZero();
    }
}
