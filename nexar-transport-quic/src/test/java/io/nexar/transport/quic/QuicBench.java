package io.nexar.transport.quic;

import io.nexar.Communicator;
import io.nexar.NexarConfig;
import io.nexar.internal.comm.TransportCommunicator;
import io.nexar.internal.p2p.Mailbox;
import io.nexar.internal.util.Deadline;
import io.nexar.transport.quic.bulk.BulkLaneOptions;
import io.nexar.transport.quic.security.Pem;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Measures the QUIC transport between two ranks on loopback: 64-byte round trips and the bandwidth of one 64 MiB
 * message, both through the world communicator (P2P lane). Not a test; run it by hand:
 *
 * <pre>
 * # two JVMs (rank 1 is a child process):
 * java -cp "$(cat cp.txt):target/classes:target/test-classes" --enable-native-access=ALL-UNNAMED \
 *     io.nexar.transport.quic.QuicBench two-jvm
 * # one JVM:
 * java ... io.nexar.transport.quic.QuicBench one-jvm
 * </pre>
 */
public final class QuicBench {
    /** {@code -Dbench.rtt=false} skips the round trips (only the bulk phase runs). */
    private static final boolean RTT = Boolean.parseBoolean(System.getProperty("bench.rtt", "true"));
    private static final int RTT_WARMUP = RTT ? 5_000 : 0;
    private static final int RTT_ROUNDS = RTT ? 20_000 : 1;
    private static final long BULK_BYTES = 64L << 20;
    private static final int BULK_WARMUP = Integer.getInteger("bench.warmup", 2);
    /** {@code -Dbench.rounds=N}: timed 64 MiB messages (default 5). */
    private static final int BULK_ROUNDS = Integer.getInteger("bench.rounds", 5);
    private static final NexarConfig CONFIG = NexarConfig.builder().ignoreEnvironment()
            .p2pTimeout(Duration.ofSeconds(60)).build();

    /** {@code -Dbench.bulk=off|tls|plain}: the bulk lane to measure (default tls, 1 MiB threshold). */
    private static final BulkLaneOptions BULK = switch (System.getProperty("bench.bulk", "tls")) {
        case "off" -> BulkLaneOptions.off();
        case "plain" -> new BulkLaneOptions(BulkLaneOptions.Mode.TCP_PLAIN, BulkLaneOptions.DEFAULT_THRESHOLD_BYTES);
        default -> BulkLaneOptions.defaults();
    };

    private QuicBench() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length == 0 ? "one-jvm" : args[0];
        switch (mode) {
            case "one-jvm" -> oneJvm();
            case "two-jvm" -> parent();
            case "child" -> child(Path.of(args[1]), args[2], Integer.parseInt(args[3]));
            default -> throw new IllegalArgumentException("mode " + mode + ": one-jvm, two-jvm");
        }
    }

    private static void oneJvm() throws Exception {
        var cluster = QuicTestCluster.start(2, CONFIG, InetAddress.getLoopbackAddress(), BULK);
        try {
            Thread peer = Thread.ofVirtual().start(() -> {
                follow(cluster.communicator(1));
            });
            lead(cluster.communicator(0), "one JVM", () -> 0L); // the process CPU time covers both ranks
            peer.join();
        } finally {
            cluster.close();
        }
    }

    /** Rank 0 here, rank 1 in a child JVM that gets its key and certificate through a private temp directory. */
    private static void parent() throws Exception {
        Path dir = Files.createTempDirectory("nexar-bench");
        MemberCredentials child = QuicTestCluster.credentials(1);
        Pem.writePrivateKey(dir.resolve("key.pem"), child.privateKey());
        Pem.writeCertificates(dir.resolve("chain.pem"), child.chain());
        Pem.writeCertificates(dir.resolve("ca.pem"), List.of(child.clusterCa()));
        var mailbox = new Mailbox(CONFIG.unexpectedMaxBytes());
        var t = new QuicTransport(0, 2, QuicTestCluster.credentials(0), CONFIG,
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), mailbox, BULK);
        InetSocketAddress mine = t.bind();
        var cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Dbench.bulk=" + System.getProperty("bench.bulk", "tls"),
                "-Dbench.rtt=" + RTT, "-Dbench.rounds=" + BULK_ROUNDS, "-Dbench.warmup=" + BULK_WARMUP,
                "-Dbench.parentBulk=" + (t.bulkAddress() == null ? 0 : t.bulkAddress().getPort()),
                "-cp", System.getProperty("java.class.path"),
                QuicBench.class.getName(), "child", dir.toString(), mine.getHostString(),
                Integer.toString(mine.getPort())));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        var out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String[] hostPort = out.readLine().split(" ");
        var other = new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
        int otherBulk = Integer.parseInt(hostPort[2]);
        var otherBulkAddress = otherBulk == 0 ? null : new InetSocketAddress(hostPort[0], otherBulk);
        t.connect(List.of(new PeerInfo(0, "m0", mine, t.bulkAddress()), new PeerInfo(1, "m1", other,
                otherBulkAddress)), Deadline.after(Duration.ofSeconds(20)));
        var c = new TransportCommunicator(t, mailbox, CONFIG, 0, t::close);
        try {
            lead(c, "two JVMs", () -> {
                try {
                    return Long.parseLong(out.readLine().trim()); // the child's CPU nanoseconds in the bulk phase
                } catch (java.io.IOException | NumberFormatException e) {
                    return 0L;
                }
            });
        } finally {
            c.close();
            p.waitFor();
            for (String f : new String[] {"key.pem", "chain.pem", "ca.pem"}) {
                Files.deleteIfExists(dir.resolve(f));
            }
            Files.deleteIfExists(dir);
        }
    }

    private static void child(Path dir, String host, int port) throws Exception {
        var creds = new MemberCredentials(Pem.readPrivateKey(dir.resolve("key.pem")),
                Pem.readCertificates(dir.resolve("chain.pem")), Pem.readCertificates(dir.resolve("ca.pem")).getFirst(),
                "m1");
        var mailbox = new Mailbox(CONFIG.unexpectedMaxBytes());
        var t = new QuicTransport(1, 2, creds, CONFIG, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                mailbox, BULK);
        InetSocketAddress mine = t.bind();
        InetSocketAddress bulk = t.bulkAddress();
        System.out.println(mine.getHostString() + " " + mine.getPort() + " " + (bulk == null ? 0 : bulk.getPort()));
        System.out.flush();
        int hostBulk = Integer.parseInt(System.getProperty("bench.parentBulk", "0"));
        t.connect(List.of(new PeerInfo(0, "m0", new InetSocketAddress(host, port),
                hostBulk == 0 ? null : new InetSocketAddress(host, hostBulk)), new PeerInfo(1, "m1", mine, bulk)),
                Deadline.after(Duration.ofSeconds(20)));
        var c = new TransportCommunicator(t, mailbox, CONFIG, 0, t::close);
        long cpu = follow(c);
        System.out.println(cpu);
        System.out.flush();
        c.close();
    }

    /** CPU time of this whole process, in nanoseconds. */
    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** Rank 0: drives both measurements and prints them; {@code peerCpu} gives the other process's bulk CPU time. */
    private static void lead(Communicator c, String where, java.util.function.LongSupplier peerCpu) {
        byte[] small = new byte[64];
        for (int i = 0; i < RTT_WARMUP; i++) {
            c.send(1, 1, small);
            c.recv(1, 2, small);
        }
        long[] rtt = new long[RTT_ROUNDS];
        for (int i = 0; i < RTT_ROUNDS; i++) {
            long t0 = System.nanoTime();
            c.send(1, 1, small);
            c.recv(1, 2, small);
            rtt[i] = System.nanoTime() - t0;
        }
        Arrays.sort(rtt);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment big = arena.allocate(BULK_BYTES, 64);
            double best = 0;
            double sum = 0;
            long cpu0 = 0;
            for (int i = 0; i < BULK_WARMUP + BULK_ROUNDS; i++) {
                if (i == BULK_WARMUP) {
                    cpu0 = cpuNanos();
                }
                long t0 = System.nanoTime();
                c.send(1, 3, big);
                c.recv(1, 4, small);
                double mbps = BULK_BYTES / 1e6 / ((System.nanoTime() - t0) / 1e9);
                if (i >= BULK_WARMUP) {
                    best = Math.max(best, mbps);
                    sum += mbps;
                }
            }
            long cpu = cpuNanos() - cpu0 + peerCpu.getAsLong();
            double cpuPerGib = cpu / 1e9 / (BULK_ROUNDS * (double) BULK_BYTES / (1L << 30));
            System.out.printf("CPU %.2f s per GiB moved (both ranks), load average %s%n", cpuPerGib,
                    java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            System.out.printf("QUIC, bulk lane %s, %s: 64 B round trip median %.1f us, p99 %.1f us, mean %.1f us"
                            + " (%d rounds); 64 MiB message %.0f MB/s mean, %.0f MB/s best (%d rounds)%n",
                    System.getProperty("bench.bulk", "tls"), where,
                    rtt[RTT_ROUNDS / 2] / 1e3, rtt[RTT_ROUNDS * 99 / 100] / 1e3,
                    Arrays.stream(rtt).average().orElse(0) / 1e3, RTT_ROUNDS, sum / BULK_ROUNDS, best, BULK_ROUNDS);
        }
    }

    /** Rank 1: echoes small messages and acknowledges each bulk message; returns its CPU time of the bulk rounds. */
    private static long follow(Communicator c) {
        byte[] small = new byte[64];
        for (int i = 0; i < RTT_WARMUP + RTT_ROUNDS; i++) {
            c.recv(0, 1, small);
            c.send(0, 2, small);
        }
        try (Arena arena = Arena.ofShared()) {
            MemorySegment big = arena.allocate(BULK_BYTES, 64);
            long cpu0 = 0;
            for (int i = 0; i < BULK_WARMUP + BULK_ROUNDS; i++) {
                if (i == BULK_WARMUP) {
                    cpu0 = cpuNanos();
                }
                c.recv(0, 3, big);
                c.send(0, 4, small);
            }
            return cpuNanos() - cpu0;
        }
    }
}
