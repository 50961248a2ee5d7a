package io.nexar.it.netns;

import io.nexar.Communicator;
import io.nexar.DataType;
import io.nexar.Nexar;
import io.nexar.NexarException;
import io.nexar.PeerFailedException;
import io.nexar.ReduceOp;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * The program each rank runs in the network-namespace tests. It joins with {@link Nexar#join()} (the test sets
 * {@code NEXAR_JOIN}, {@code NEXAR_RANK} and {@code NEXAR_WORLD_SIZE}, as {@code nexar launch} does) and runs one
 * mode:
 *
 * <ul>
 *   <li>{@code collectives sizes=8,8200,1048576 rounds=1}: every collective (barrier, allReduce, broadcast, reduce,
 *       allGather, reduceScatter, allToAll, gather, scatter, scan) on 64-bit integers, for each size (bytes of the
 *       largest buffer of the operation), each result compared element by element with values computed locally;
 *       prints {@code ok op=... bytes=... ms=...} per operation, or {@code MISMATCH ...} and exits 1.</li>
 *   <li>{@code stream bytes=65536 iterations=100000}: allReduce after allReduce, each checked, printing
 *       {@code iteration N done} (for each of the first 100, then every 100th). Under recovery policy
 *       {@code automatic} (the environment's {@code NEXAR_RECOVERY_POLICY}), a {@link PeerFailedException} is the
 *       announcement of the rebuilt world: the survivors agree on the iteration to redo (the smallest any of them was
 *       at; an allReduce can complete on some and fail on others), print {@code recovered iteration=N world=W rank=R
 *       message=...} and go on; with {@code after=K}, a rank that recovered stops K iterations later with
 *       {@code survived iteration=N world=W} (exit 0).</li>
 * </ul>
 *
 * <p>With {@code hold=true}, a rank that finished without error prints {@code holding ...} and waits until its
 * standard input ends before it closes its communicator and exits 0. Without it, a rank closes as soon as its own
 * part is done, possibly while slower ranks are still inside the last collective.
 *
 * <p>Every failure prints {@code FAILED op=... iteration=... exception=... code=... peer=... message=...} (peer is
 * the exception's typed {@link NexarException#peer()}, -1 when it has none) and exits 1. The program exits (code 3)
 * when its standard input reaches end of file (unless holding), so it never outlives the test that started it, and
 * (code 4) after {@code limit=} (default 300s).
 */
public final class NetCheck {
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Communicator comm;
    /** This rank and the world size; both change when an automatic recovery rebuilds the world. */
    private int rank;
    private int world;
    private String op = "join";
    private long iteration = -1;

    private NetCheck(Communicator comm) {
        this.comm = comm;
        this.rank = comm.rank();
        this.world = comm.worldSize();
    }

    /** Runs one rank; see the class comment for the arguments. */
    public static void main(String[] args) {
        if (args.length == 0) {
            System.err.println("usage: NetCheck collectives|stream key=value...");
            System.exit(2);
        }
        Map<String, String> opts = new HashMap<>();
        for (int i = 1; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            opts.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        Duration limit = Duration.parse("PT" + opts.getOrDefault("limit", "300s"));
        // set before the run: the test may close standard input as soon as it reads the run's last line, before this
        // rank reaches holdUntilReleased (a rank that had checked everything then halted with code 3)
        holding = Boolean.parseBoolean(opts.getOrDefault("hold", "false"));
        guard(limit);
        long start = System.nanoTime();
        Communicator comm;
        try {
            comm = Nexar.join();
        } catch (NexarException e) {
            System.out.println(failure("join", -1, e));
            System.exit(1);
            return;
        }
        var check = new NetCheck(comm);
        System.out.printf("joined rank=%d world=%d ms=%d%n", check.rank, check.world, millisSince(start));
        int code;
        try {
            code = switch (args[0]) {
                case "collectives" -> check.collectives(sizes(opts.getOrDefault("sizes", "8,8200,65536")),
                        Integer.parseInt(opts.getOrDefault("rounds", "1")));
                case "stream" -> check.stream(Long.parseLong(opts.getOrDefault("bytes", "65536")),
                        Long.parseLong(opts.getOrDefault("iterations", "1000000")),
                        Long.parseLong(opts.getOrDefault("after", "-1")));
                default -> throw new IllegalArgumentException("unknown mode " + args[0]);
            };
        } catch (NexarException e) {
            System.out.println(failure(check.op, check.iteration, e));
            code = 1;
        }
        if (code == 0 && Boolean.parseBoolean(opts.getOrDefault("hold", "false"))) {
            holdUntilReleased();
        }
        long closing = System.nanoTime();
        try {
            comm.close();
        } catch (RuntimeException e) {
            System.out.println("close failed: " + e);
        }
        System.out.printf("exit code=%d ms=%d close_ms=%d%n", code, millisSince(start), millisSince(closing));
        System.exit(code);
    }

    /** Counted down when standard input ends while the program holds (see {@code hold=}). */
    private static final CountDownLatch RELEASED = new CountDownLatch(1);
    private static volatile boolean holding;

    /**
     * Exits when standard input ends (the test is gone or done), unless the program is holding, and after
     * {@code limit} in any case.
     */
    private static void guard(Duration limit) {
        Thread.ofPlatform().daemon().name("netcheck-stdin").start(() -> {
            try {
                while (System.in.read() >= 0) {
                    // Nothing is sent on stdin; it only tells when the parent is gone or wants this rank to end.
                }
            } catch (IOException e) {
                // Treated as end of file.
            }
            if (holding) {
                RELEASED.countDown();
                return;
            }
            System.out.println("exit: standard input closed");
            Runtime.getRuntime().halt(3);
        });
        Thread.ofPlatform().daemon().name("netcheck-limit").start(() -> {
            try {
                Thread.sleep(limit);    // a safety limit on this process's life, not a wait for an effect
            } catch (InterruptedException e) {
                return;
            }
            System.out.println("exit: limit " + limit + " reached");
            Runtime.getRuntime().halt(4);
        });
    }

    /**
     * Waits, after a successful run, until standard input ends before closing the communicator: the test closes it
     * once every rank has finished, so no rank leaves while another is still inside a collective.
     */
    private static void holdUntilReleased() {
        System.out.println("holding until standard input ends");
        try {
            RELEASED.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String failure(String op, long iteration, NexarException e) {
        return "FAILED op=" + op + " iteration=" + iteration + " exception=" + e.getClass().getSimpleName()
                + " code=" + e.code() + " peer=" + e.peer().orElse(-1) + " message=" + e.getMessage();
    }

    private static List<Long> sizes(String text) {
        var out = new ArrayList<Long>();
        for (String s : text.split(",")) {
            out.add(Long.parseLong(s.strip()));
        }
        return out;
    }

    private static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    // -------------------------------------------------------------------------------------------- modes

    private int collectives(List<Long> sizes, int rounds) {
        long start = System.nanoTime();
        int checked = 0;
        for (int round = 0; round < rounds; round++) {
            for (long bytes : sizes) {
                long n = Math.max(1, bytes / 8);             // elements of a buffer of one rank's share
                long block = Math.max(1, n / world);         // elements per rank in the worldSize-block buffers
                int root = (round + checked) % world;
                for (String name : List.of("barrier", "allReduce", "broadcast", "reduce", "allGather",
                        "reduceScatter", "allToAll", "gather", "scatter", "scan")) {
                    op = name;
                    long t0 = System.nanoTime();
                    String wrong = run(name, n, block, root, round);
                    if (wrong != null) {
                        System.out.println("MISMATCH op=" + name + " bytes=" + bytes + " rank=" + rank + " root="
                                + root + " round=" + round + ": " + wrong);
                        return 1;
                    }
                    checked++;
                    System.out.printf("ok op=%s bytes=%d ms=%d%n", name, bytes, millisSince(t0));
                }
            }
        }
        System.out.printf("done checked=%d ms=%d%n", checked, millisSince(start));
        return 0;
    }

    private int stream(long bytes, long iterations, long after) {
        long n = Math.max(1, bytes / 8);
        boolean recovers = "automatic".equalsIgnoreCase(System.getenv().getOrDefault("NEXAR_RECOVERY_POLICY", ""));
        long stopAt = Long.MAX_VALUE;
        for (iteration = 1; iteration <= iterations; iteration++) {
            if (iteration == stopAt) {
                System.out.println("survived iteration=" + iteration + " world=" + world);
                return 0;
            }
            op = "allReduce";
            String wrong;
            try {
                wrong = run("allReduce", n, 1, 0, iteration);
            } catch (PeerFailedException e) {
                if (!recovers) {
                    throw e;
                }
                op = "agreement";
                long[] at = {iteration};
                comm.allReduce(at, ReduceOp.MIN); // on the rebuilt world; a further failure ends the run
                rank = comm.rank();
                world = comm.worldSize();
                System.out.println("recovered iteration=" + at[0] + " world=" + world + " rank=" + rank
                        + " message=" + e.getMessage());
                iteration = at[0] - 1; // redone next
                stopAt = after < 0 ? Long.MAX_VALUE : at[0] + after;
                continue;
            }
            if (wrong != null) {
                System.out.println("MISMATCH op=allReduce iteration=" + iteration + " rank=" + rank + ": " + wrong);
                return 1;
            }
            if (iteration <= 100 || iteration % 100 == 0) {
                System.out.println("iteration " + iteration + " done");
            }
        }
        return 0;
    }

    // -------------------------------------------------------------------------------------------- one check

    /** The value rank {@code r} contributes at element {@code i} in round {@code round}: distinct everywhere. */
    private static long v(int r, long i, long round) {
        return round * 1_000_000_007L + r * 1_000_003L + i;
    }

    /** Runs collective {@code name} once and returns null if its result is right, else what is wrong. */
    private String run(String name, long n, long block, int root, long round) {
        // Shared: the transport's threads may read and fill the buffers while this thread waits.
        try (Arena arena = Arena.ofShared()) {
            switch (name) {
                case "barrier" -> {
                    comm.barrier();
                    return null;
                }
                case "allReduce" -> {
                    var data = filled(arena, n, rank, round);
                    comm.allReduce(data, DataType.I64, n, ReduceOp.SUM);
                    return compare(data, n, i -> sumOver(world, r -> v(r, i, round)));
                }
                case "broadcast" -> {
                    var data = rank == root ? filled(arena, n, rank, round) : zeros(arena, n);
                    comm.broadcast(data, DataType.I64, n, root);
                    return compare(data, n, i -> v(root, i, round));
                }
                case "reduce" -> {
                    var in = filled(arena, n, rank, round);
                    var out = zeros(arena, n);
                    comm.reduce(in, out, DataType.I64, n, ReduceOp.SUM, root);
                    return rank != root ? null : compare(out, n, i -> sumOver(world, r -> v(r, i, round)));
                }
                case "allGather" -> {
                    var in = filled(arena, block, rank, round);
                    var out = zeros(arena, block * world);
                    comm.allGather(in, out, DataType.I64, block);
                    return compare(out, block * world, i -> v((int) (i / block), i % block, round));
                }
                case "reduceScatter" -> {
                    var in = filled(arena, block * world, rank, round);
                    var out = zeros(arena, block);
                    comm.reduceScatter(in, out, DataType.I64, block, ReduceOp.SUM);
                    return compare(out, block, i -> sumOver(world, r -> v(r, rank * block + i, round)));
                }
                case "allToAll" -> {
                    var in = filled(arena, block * world, rank, round);
                    var out = zeros(arena, block * world);
                    comm.allToAll(in, out, DataType.I64, block);
                    // Block j of out is block `rank` of rank j's in.
                    return compare(out, block * world, i -> v((int) (i / block), rank * block + i % block, round));
                }
                case "gather" -> {
                    var in = filled(arena, block, rank, round);
                    var out = rank == root ? zeros(arena, block * world) : null;
                    comm.gather(in, out, DataType.I64, block, root);
                    return rank != root ? null : compare(out, block * world, i -> v((int) (i / block), i % block,
                            round));
                }
                case "scatter" -> {
                    var in = rank == root ? filled(arena, block * world, rank, round) : null;
                    var out = zeros(arena, block);
                    comm.scatter(in, out, DataType.I64, block, root);
                    return compare(out, block, i -> v(root, rank * block + i, round));
                }
                case "scan" -> {
                    var in = filled(arena, n, rank, round);
                    var out = zeros(arena, n);
                    comm.scan(in, out, DataType.I64, n, ReduceOp.SUM);
                    return compare(out, n, i -> sumOver(rank + 1, r -> v(r, i, round)));
                }
                default -> throw new IllegalArgumentException("unknown collective " + name);
            }
        }
    }

    private interface Expected {
        long at(long index);
    }

    private interface PerRank {
        long of(int rank);
    }

    private static long sumOver(int ranks, PerRank value) {
        long sum = 0;
        for (int r = 0; r < ranks; r++) {
            sum += value.of(r);
        }
        return sum;
    }

    private static MemorySegment filled(Arena arena, long count, int rank, long round) {
        var seg = arena.allocate(I64, count);
        for (long i = 0; i < count; i++) {
            seg.setAtIndex(I64, i, v(rank, i, round));
        }
        return seg;
    }

    private static MemorySegment zeros(Arena arena, long count) {
        return arena.allocate(I64, count);
    }

    private static String compare(MemorySegment got, long count, Expected want) {
        for (long i = 0; i < count; i++) {
            long g = got.getAtIndex(I64, i);
            long w = want.at(i);
            if (g != w) {
                return "element " + i + " of " + count + " is " + g + ", expected " + w;
            }
        }
        return null;
    }
}
