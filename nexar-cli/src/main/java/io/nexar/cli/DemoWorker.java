package io.nexar.cli;

import io.nexar.Communicator;
import io.nexar.Nexar;
import io.nexar.ReduceOp;
import java.util.Arrays;
import java.util.Locale;

/**
 * One rank of {@code nexar demo}: joins the cluster with {@link Nexar#join()}, checks allReduce, broadcast and
 * barrier results element by element, then times them. Rank 0 prints the report. Exits 1 if any check fails.
 */
public final class DemoWorker {
    private static final int[] ALLREDUCE_BYTES = {8, 64 << 10, 1 << 20, 16 << 20};
    private static final int[] BROADCAST_BYTES = {64 << 10, 16 << 20};

    private DemoWorker() {
    }

    public static void main(String[] args) {
        try (Communicator world = Nexar.join()) {
            int bad = check(world);
            var report = new StringBuilder();
            report.append(String.format(Locale.ROOT, "%-10s %10s %12s %12s %12s%n", "op", "size", "median us",
                    "min us", "busbw GB/s"));
            for (int bytes : ALLREDUCE_BYTES) {
                float[] x = new float[bytes / 4];
                long[] t = time(world, () -> world.allReduce(x, ReduceOp.SUM), bytes);
                report.append(row("allreduce", bytes, t, 2.0 * (world.worldSize() - 1) / world.worldSize()));
            }
            for (int bytes : BROADCAST_BYTES) {
                float[] x = new float[bytes / 4];
                long[] t = time(world, () -> world.broadcast(x, 0), bytes);
                report.append(row("broadcast", bytes, t, 1.0));
            }
            long[] t = time(world, world::barrier, 0);
            report.append(row("barrier", 0, t, 0));
            int totalBad = allBad(world, bad);
            if (world.rank() == 0) {
                System.out.println("checks: allreduce (sum of ranks), broadcast (root 0), barrier on "
                        + world.worldSize() + " ranks: " + (totalBad == 0 ? "ok" : totalBad + " wrong elements"));
                System.out.print(report);
            }
            if (totalBad != 0) {
                System.exit(1);
            }
        }
    }

    /** Returns the number of wrong elements seen by this rank. */
    private static int check(Communicator world) {
        int n = world.worldSize();
        int bad = 0;
        for (int count : new int[] {1, 1000, 262_147}) {
            float[] x = new float[count];
            Arrays.fill(x, world.rank() + 1);
            world.allReduce(x, ReduceOp.SUM);
            float want = n * (n + 1) / 2f;
            for (float v : x) {
                bad += v == want ? 0 : 1;
            }
            float[] b = new float[count];
            if (world.rank() == 0) {
                for (int i = 0; i < count; i++) {
                    b[i] = i * 0.5f;
                }
            }
            world.broadcast(b, 0);
            for (int i = 0; i < count; i++) {
                bad += b[i] == i * 0.5f ? 0 : 1;
            }
        }
        world.barrier();
        return bad;
    }

    private static int allBad(Communicator world, int bad) {
        int[] total = {bad};
        world.allReduce(total, ReduceOp.SUM);
        return total[0];
    }

    private static long[] time(Communicator world, Runnable op, int bytes) {
        int iterations = bytes >= 16 << 20 ? 10 : bytes >= 1 << 20 ? 30 : 200;
        for (int i = 0; i < Math.min(20, iterations); i++) {
            op.run();
        }
        long[] t = new long[iterations];
        for (int i = 0; i < iterations; i++) {
            world.barrier();
            long t0 = System.nanoTime();
            op.run();
            t[i] = System.nanoTime() - t0;
        }
        Arrays.sort(t);
        return t;
    }

    private static String row(String op, int bytes, long[] sorted, double busFactor) {
        double median = sorted[sorted.length / 2] / 1e3;
        double busbw = bytes == 0 ? 0 : bytes * busFactor / (sorted[sorted.length / 2]);
        String size = bytes >= 1 << 20 ? (bytes >> 20) + " MiB" : bytes >= 1 << 10 ? (bytes >> 10) + " KiB"
                : bytes + " B";
        return String.format(Locale.ROOT, "%-10s %10s %12.1f %12.1f %12.3f%n", op, size, median, sorted[0] / 1e3,
                busbw);
    }
}
