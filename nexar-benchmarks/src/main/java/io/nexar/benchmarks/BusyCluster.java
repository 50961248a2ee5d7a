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

/**
 * A {@link LocalCluster} whose ranks 1..n-1 run the same allReduce (F32 SUM, in place, buffers reused) in a loop on
 * their own platform threads, so that each call of {@link #allReduceOnRankZero} from the benchmark thread is one whole
 * collective. {@link #close} closes the cluster, which fails the others' pending call and ends their loops.
 */
final class BusyCluster implements AutoCloseable {
    private final LocalCluster cluster;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment data;
    private final long count;
    private final List<Thread> others = new ArrayList<>();

    /** Starts {@code ranks} ranks with the default configuration, each reducing {@code bytes} bytes. */
    BusyCluster(int ranks, int bytes) {
        cluster = LocalCluster.start(ranks, NexarConfig.defaults());
        count = bytes / DataType.F32.byteSize();
        data = arena.allocate(bytes, 64);
        for (int rank = 1; rank < ranks; rank++) {
            Communicator c = cluster.communicator(rank);
            MemorySegment own = arena.allocate(bytes, 64);
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

    /** One allReduce over all ranks, called by rank 0. */
    void allReduceOnRankZero() {
        cluster.communicator(0).allReduce(data, DataType.F32, count, ReduceOp.SUM);
    }

    /** Closes the cluster, waits (bounded) for the other ranks' loops to end, and frees the buffers. */
    @Override
    public void close() throws InterruptedException {
        cluster.close();
        for (Thread t : others) {
            t.join(10_000);
        }
        arena.close();
    }
}
