package io.nexar.benchmarks;

import io.nexar.Communicator;
import io.nexar.CommunicatorClosedException;
import io.nexar.DataType;
import io.nexar.NexarConfig;
import io.nexar.NexarException;
import io.nexar.ReduceOp;
import io.nexar.testkit.LocalCluster;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
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
 * Small allReduces (or sendRecvs) on one communicator while every rank also drives a second communicator (a {@code dup()} of the
 * world) from a thread of its own, on a {@link LocalCluster}: what a program that runs two communicators at once (a
 * data-parallel step beside a metrics or control communicator) pays, which is where the collective engine's lock per
 * communicator (docs/architecture.md, "Toward one receive side per communicator") matters. With {@code busy=false}
 * the second communicator is idle: the same call alone. The benchmark thread is rank 0 on the world communicator;
 * every other (rank, communicator) pair loops on a platform thread of its own.
 *
 * <pre>
 * java -jar nexar-benchmarks/target/benchmarks.jar TwoCommunicatorsBenchmark -f 1 -wi 3 -i 5 -w 1s -r 1s
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class TwoCommunicatorsBenchmark {
    /** Number of ranks. */
    @Param({"2"})
    public int ranks;

    /** Whether the second communicator runs calls of its own meanwhile. */
    @Param({"false", "true"})
    public boolean busy;

    /**
     * The call on both communicators: an 8-byte {@code allreduce} (the collective engine's shards), or a
     * {@code sendrecv} of 8 bytes with the other rank of 2 (the mailbox's shards).
     */
    @Param({"allreduce", "sendrecv"})
    public String op;

    private static final long COUNT = 2; // 8 bytes of F32

    private LocalCluster cluster;
    private final Arena arena = Arena.ofShared();
    private MemorySegment data;
    private MemorySegment received;
    private final List<Thread> loops = new ArrayList<>();
    /** Calls rank 0's second communicator completed, and when the loops started: printed at the end. */
    private final java.util.concurrent.atomic.LongAdder secondCalls = new java.util.concurrent.atomic.LongAdder();
    private long startNanos;

    /** Starts the cluster, creates every rank's second communicator and the loops. */
    @Setup
    public void setUp() {
        cluster = LocalCluster.start(ranks, NexarConfig.defaults());
        data = arena.allocate(COUNT * 4, 64);
        received = arena.allocate(COUNT * 4, 64);
        var dups = new ArrayList<CompletableFuture<Communicator>>();
        for (int r = 0; r < ranks; r++) {
            Communicator world = cluster.communicator(r);
            var dup = new CompletableFuture<Communicator>(); // collective: every rank at once, each on a thread of its
            Thread.ofPlatform().start(() -> dup.complete(world.dup())); // own (the common pool may have one)
            dups.add(dup);
        }
        for (int r = 0; r < ranks; r++) {
            Communicator second = dups.get(r).join();
            if (busy) {
                loop("bench-dup-rank-" + r, second, r == 0 ? secondCalls : new java.util.concurrent.atomic.LongAdder());
            }
            if (r > 0) {
                loop("bench-world-rank-" + r, cluster.communicator(r), new java.util.concurrent.atomic.LongAdder());
            }
        }
        startNanos = System.nanoTime();
    }

    private void loop(String name, Communicator c, java.util.concurrent.atomic.LongAdder calls) {
        MemorySegment own = arena.allocate(COUNT * 4, 64);
        loops.add(Thread.ofPlatform().daemon().name(name).start(() -> {
            try {
                MemorySegment in = arena.allocate(COUNT * 4, 64);
                while (true) {
                    call(c, own, in);
                    calls.increment();
                }
            } catch (CommunicatorClosedException e) {
                // The benchmark ended.
            } catch (NexarException e) {
                // A peer closed while this rank waited: also the end.
            }
        }));
    }

    /** Closes the cluster, which ends the loops (bounded wait), and frees the buffers. */
    @TearDown
    public void tearDown() throws InterruptedException {
        long calls = secondCalls.sum();
        if (busy) { // the measured communicator must not win by starving the other: say what the other did
            System.out.printf("second communicator meanwhile: %.1f us per call (%d calls)%n",
                    (System.nanoTime() - startNanos) / 1e3 / Math.max(1, calls), calls);
        }
        cluster.close();
        for (Thread t : loops) {
            t.join(10_000);
        }
        arena.close();
    }

    /** One call ({@link #op}) on the world communicator, seen from rank 0. */
    @Benchmark
    public void call() {
        call(cluster.communicator(0), data, received);
    }

    private void call(Communicator c, MemorySegment out, MemorySegment in) {
        if (op.equals("sendrecv")) {
            int other = (c.rank() + 1) % c.worldSize();
            c.sendRecv(other, 7, out, other, 7, in);
        } else {
            c.allReduce(out, DataType.F32, COUNT, ReduceOp.SUM);
        }
    }
}
