package io.nexar.examples;

import io.nexar.Communicator;
import io.nexar.DataType;
import io.nexar.Nexar;
import io.nexar.ReduceOp;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The workload of the soak campaign ({@code scripts/soak.sh}): mixed collectives and point-to-point messages of every
 * size class, in a loop, for a given time, with every result checked. Buffers are allocated once, so what grows over
 * the run is nexar's, not this program's.
 *
 * <pre>
 * ./nexar launch -n 4 io.nexar.examples.Soak SECONDS [SAMPLE_SECONDS]
 * </pre>
 *
 * One cycle: allreduce of 8 B, 64 KiB and (every 16th cycle) 1 MiB; broadcast of 64 KiB from a rotating root;
 * allgather of 1 KiB per rank; reduce-scatter; inclusive scan; allToAll; barrier; and a ring of point-to-point
 * messages of 8 B and 64 KiB. Every {@code SAMPLE_SECONDS} (default 10) each rank collects garbage and prints
 * {@code soak sample t=S ops=N heap=B rss=B threads=T fds=F} (bytes; {@code ops} counts this rank's calls); at the end
 * {@code soak done: ops=N wrong=W}. Exits 0 when every result was right, 1 otherwise. The script judges flatness.
 */
public final class Soak {
    private static final int SMALL = 2;
    private static final int MEDIUM = 16 * 1024;
    private static final int LARGE = 256 * 1024;
    private static final int GATHER = 256;

    private final Communicator world;
    private final int rank;
    private final int size;
    private final float[] small = new float[SMALL];
    private final float[] medium = new float[MEDIUM];
    private final float[] large = new float[LARGE];
    private final float[] gatherIn = new float[GATHER];
    private final float[] gatherOut;
    private final float[] scatterIn;
    private final float[] scatterOut = new float[GATHER];
    private final float[] scanOut = new float[SMALL];
    private final MemorySegment allToAllIn;
    private final MemorySegment allToAllOut;
    private final float[] ringSmall = new float[SMALL];
    private final float[] ringMedium = new float[MEDIUM];
    private final int[] go = new int[1];
    private long ops;
    private long wrong;

    private Soak(Communicator world, Arena arena) {
        this.world = world;
        this.rank = world.rank();
        this.size = world.worldSize();
        this.gatherOut = new float[GATHER * size];
        this.scatterIn = new float[GATHER * size];
        this.allToAllIn = arena.allocate((long) GATHER * size * Float.BYTES, 64);
        this.allToAllOut = arena.allocate((long) GATHER * size * Float.BYTES, 64);
    }

    public static void main(String[] args) {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 60;
        double sampleSeconds = args.length > 1 ? Double.parseDouble(args[1]) : 10;
        try (Communicator world = Nexar.join(); Arena arena = Arena.ofConfined()) {
            var soak = new Soak(world, arena);
            long start = System.nanoTime();
            long end = start + (long) (seconds * 1e9);
            long sampleEvery = (long) (sampleSeconds * 1e9);
            long nextSample = start + sampleEvery;
            boolean more = true;
            for (int cycle = 0; more; cycle++) {
                soak.cycle(cycle);
                long now = System.nanoTime();
                if (now >= nextSample) {
                    soak.sample((now - start) / 1e9);
                    nextSample += sampleEvery;
                }
                // every rank must run the same number of cycles: rank 0's clock decides, once per 64 cycles
                if ((cycle & 63) == 63) {
                    more = soak.goOn(now < end);
                }
            }
            soak.sample((System.nanoTime() - start) / 1e9);
            System.out.println("soak done: ops=" + soak.ops + " wrong=" + soak.wrong);
            if (soak.wrong > 0) {
                System.exit(1);
            }
        }
    }

    /** Rank 0's answer, so that every rank runs the same number of cycles. */
    private boolean goOn(boolean mine) {
        go[0] = mine ? 1 : 0;
        world.broadcast(go, 0);
        return go[0] == 1;
    }

    private void cycle(int cycle) {
        float base = cycle % 1000;
        allReduce(small, base);
        allReduce(medium, base);
        if (cycle % 16 == 0) {
            allReduce(large, base);
        }
        broadcast(base, cycle % size);
        allGather(base);
        reduceScatter(base);
        scan(base);
        allToAll(base);
        world.barrier();
        ops++;
        ring(base, SMALL);
        ring(base, MEDIUM);
    }

    /** Every rank contributes base + rank; the sum is size * base + size(size-1)/2. */
    private void allReduce(float[] data, float base) {
        Arrays.fill(data, base + rank);
        world.allReduce(data, ReduceOp.SUM);
        ops++;
        float expected = size * base + size * (size - 1) / 2f;
        check(data[0] == expected && data[data.length - 1] == expected, "allReduce");
    }

    private void broadcast(float base, int root) {
        Arrays.fill(medium, rank == root ? base + root : -1);
        world.broadcast(medium, root);
        ops++;
        check(medium[0] == base + root && medium[MEDIUM - 1] == base + root, "broadcast");
    }

    private void allGather(float base) {
        Arrays.fill(gatherIn, base + rank);
        world.allGather(gatherIn, gatherOut);
        ops++;
        boolean ok = true;
        for (int r = 0; r < size; r++) {
            ok &= gatherOut[r * GATHER] == base + r && gatherOut[r * GATHER + GATHER - 1] == base + r;
        }
        check(ok, "allGather");
    }

    /** Block r of every rank's input is base + r; this rank's reduced block is size * (base + rank). */
    private void reduceScatter(float base) {
        for (int r = 0; r < size; r++) {
            Arrays.fill(scatterIn, r * GATHER, (r + 1) * GATHER, base + r);
        }
        world.reduceScatter(scatterIn, scatterOut, ReduceOp.SUM);
        ops++;
        check(scatterOut[0] == size * (base + rank) && scatterOut[GATHER - 1] == size * (base + rank),
                "reduceScatter");
    }

    private void scan(float base) {
        Arrays.fill(small, base + 1);
        world.scan(small, scanOut, ReduceOp.SUM);
        ops++;
        check(scanOut[0] == (rank + 1) * (base + 1), "scan");
    }

    /** Block d of this rank's input is 1000 * rank + d; block s of the output must be 1000 * s + rank. */
    private void allToAll(float base) {
        for (int d = 0; d < size; d++) {
            allToAllIn.asSlice((long) d * GATHER * Float.BYTES, (long) GATHER * Float.BYTES)
                    .fill((byte) 0);
            allToAllIn.setAtIndex(ValueLayout.JAVA_FLOAT, (long) d * GATHER, base + 1000 * rank + d);
        }
        world.allToAll(allToAllIn, allToAllOut, DataType.F32, GATHER);
        ops++;
        boolean ok = true;
        for (int s = 0; s < size; s++) {
            ok &= allToAllOut.getAtIndex(ValueLayout.JAVA_FLOAT, (long) s * GATHER) == base + 1000 * s + rank;
        }
        check(ok, "allToAll");
    }

    /** Each rank sends to the next and receives from the previous; even ranks send first, so no cycle of waits. */
    private void ring(float base, int length) {
        if (size == 1) {
            return;
        }
        int next = (rank + 1) % size;
        int prev = (rank + size - 1) % size;
        float[] out = length == SMALL ? ringSmall : ringMedium;
        Arrays.fill(out, base + rank);
        if (rank % 2 == 0) {
            world.send(next, length, out);
            receive(prev, length, base);
        } else {
            receive(prev, length, base);
            world.send(next, length, out);
        }
        ops += 2;
    }

    private void receive(int prev, int length, float base) {
        float[] in = length == SMALL ? small : medium;
        int n = world.recv(prev, length, in);
        check(n == length && in[0] == base + prev && in[length - 1] == base + prev, "recv");
    }

    private void check(boolean ok, String what) {
        if (!ok && wrong++ < 10) {
            System.out.println("WRONG " + what + " result on rank " + rank + " at op " + ops);
        }
    }

    private void sample(double at) {
        System.gc();
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        int threads = ManagementFactory.getThreadMXBean().getThreadCount();
        System.out.println(String.format(Locale.ROOT, "soak sample t=%.0fs ops=%d heap=%d rss=%d threads=%d fds=%d",
                at, ops, heap, rss(), threads, fds()));
    }

    /** Resident set size in bytes from /proc (Linux), -1 elsewhere. */
    private static long rss() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return -1;
    }

    /** Open file descriptors from /proc (Linux), -1 elsewhere. */
    private static long fds() {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
