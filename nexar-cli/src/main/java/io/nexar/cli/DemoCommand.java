package io.nexar.cli;

import io.nexar.Communicator;
import io.nexar.NexarConfig;
import io.nexar.testkit.LocalCluster;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code nexar demo}: launches 4 worker JVMs that form a cluster over QUIC on loopback (seed in this process),
 * checks allReduce, broadcast and barrier results, and prints a short timing table ({@link DemoWorker}). With
 * {@code --in-process}, the ranks run in this JVM instead and exchange point-to-point messages.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Launch 4 processes that form a cluster over QUIC, check allreduce/broadcast/barrier, time them.")
final class DemoCommand implements Callable<Integer> {
    private static final int[] SIZES = {64, 64 << 10, 1 << 20, 16 << 20};

    private final CliContext context;

    @Mixin
    LogOptions logOptions;

    @Option(names = {"-n", "--np"}, description = "number of ranks (default ${DEFAULT-VALUE})", defaultValue = "4")
    int ranks;

    @Option(names = "--iters", description = "timed iterations per size (default ${DEFAULT-VALUE})",
            defaultValue = "200")
    int iterations;

    @Option(names = "--in-process", description = "run the ranks in this JVM over the in-process transport")
    boolean inProcess;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "loopback address: 127.0.0.1 or ::1")
    String host;

    DemoCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws Exception {
        if (ranks < 2) {
            throw new UsageException("--np must be at least 2, got " + ranks);
        }
        LaunchCommand.checkConfiguration(context);
        if (inProcess) {
            return inProcess();
        }
        context.out().printf("nexar demo: %d processes forming a cluster over QUIC on %s%n", ranks, host);
        int code = LaunchCommand.run(context, ranks, host, java.time.Duration.ofMinutes(10),
                new UserProgram("", DemoWorker.class.getName(), java.util.List.of()));
        context.out().println(code == ExitCodes.OK ? "demo: ok" : "demo: FAILED");
        return code;
    }

    private int inProcess() {
        NexarConfig config = NexarConfig.builder().environment(context.env())
                .systemProperties(context.systemProperties()).build();
        var out = context.out();
        out.printf("nexar demo: %d ranks in this JVM over the in-process transport%n", ranks);
        try (var cluster = LocalCluster.start(ranks, config)) {
            Map<Integer, Integer> ring = cluster.onEachRank(DemoCommand::ringPass);
            int expected = ranks * (ranks - 1) / 2;
            boolean ringOk = ring.get(0) == expected;
            out.printf("  ring pass      %s  (token summed ranks 0..%d = %d, expected %d)%n", ok(ringOk), ranks - 1,
                    ring.get(0), expected);
            Map<Integer, Integer> bad = cluster.onEachRank(DemoCommand::allPairs);
            int mismatches = bad.values().stream().mapToInt(Integer::intValue).sum();
            out.printf("  all pairs      %s  (%d messages of 4096 floats, %d mismatching elements)%n",
                    ok(mismatches == 0), ranks * (ranks - 1), mismatches);
            out.println();
            out.println("  ping-pong between rank 0 and rank 1:");
            out.printf("  %10s %14s %14s %12s%n", "size", "median rt us", "min rt us", "GB/s");
            for (int size : SIZES) {
                long[] rtts = cluster.onEachRank(c -> pingPong(c, size, iterations)).get(0);
                Arrays.sort(rtts);
                double median = rtts[rtts.length / 2] / 1e3;
                double min = rtts[0] / 1e3;
                double gbps = 2.0 * size / (rtts[rtts.length / 2]);
                out.printf(Locale.ROOT, "  %10s %14.1f %14.1f %12.3f%n", human(size), median, min, gbps);
            }
            boolean pass = ringOk && mismatches == 0;
            out.println();
            out.println(pass ? "demo: ok" : "demo: FAILED");
            return pass ? ExitCodes.OK : ExitCodes.FAILED;
        }
    }

    /** Rank 0 starts a token; each rank adds its rank and passes it on; rank 0 gets the sum back. */
    private static int ringPass(Communicator c) {
        int next = (c.rank() + 1) % c.worldSize();
        int prev = (c.rank() + c.worldSize() - 1) % c.worldSize();
        var token = new int[1];
        if (c.rank() == 0) {
            c.send(next, 1, token);
            c.recv(prev, 1, token);
            return token[0];
        }
        c.recv(prev, 1, token);
        token[0] += c.rank();
        c.send(next, 1, token);
        return -1;
    }

    /** Every rank sends a distinct array to every other rank and checks what it receives. */
    private static int allPairs(Communicator c) {
        int n = c.worldSize();
        for (int peer = 0; peer < n; peer++) {
            if (peer != c.rank()) {
                c.send(peer, 2, values(c.rank(), peer));
            }
        }
        int bad = 0;
        var got = new float[4096];
        for (int peer = 0; peer < n; peer++) {
            if (peer != c.rank()) {
                c.recv(peer, 2, got);
                float[] want = values(peer, c.rank());
                for (int i = 0; i < got.length; i++) {
                    bad += Float.compare(got[i], want[i]) == 0 ? 0 : 1;
                }
            }
        }
        return bad;
    }

    private static float[] values(int from, int to) {
        var v = new float[4096];
        for (int i = 0; i < v.length; i++) {
            v[i] = from * 1000 + to + i * 0.5f;
        }
        return v;
    }

    /** Round-trip times in nanoseconds on rank 0 (after 3 warm-up rounds); other ranks return an empty array. */
    private static long[] pingPong(Communicator c, int size, int iterations) {
        if (c.rank() > 1) {
            return new long[0];
        }
        var buf = new byte[size];
        var rtts = new long[iterations];
        for (int i = -3; i < iterations; i++) {
            long t0 = System.nanoTime();
            if (c.rank() == 0) {
                c.send(1, 3, buf);
                c.recv(1, 3, buf);
            } else {
                c.recv(0, 3, buf);
                c.send(0, 3, buf);
            }
            if (i >= 0) {
                rtts[i] = System.nanoTime() - t0;
            }
        }
        return rtts;
    }

    private static String ok(boolean ok) {
        return ok ? "ok    " : "FAILED";
    }

    private static String human(int bytes) {
        if (bytes >= 1 << 20) {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 1 << 10) {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " B";
    }
}
