package io.nexar.transport.quic;

import io.nexar.transport.quic.security.Pem;
import io.nexar.transport.quic.security.TlsMaterial;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

/**
 * The reference for the bulk lane (issue 5): 64 MiB over mutual TLS 1.3 between two plain JDK {@link SSLSocket}s on
 * loopback, in two JVMs, with the same certificates, CA checks and cipher suite (AES-128-GCM) as the bulk lane, no
 * framing and no copies beyond the JDK's. Reports MB/s and CPU seconds (user + system, both processes) per GiB moved,
 * like {@link QuicBench}, so the two can be run one after the other and compared. Not a test; run it by hand:
 *
 * <pre>
 * java -cp "$(cat cp.txt):target/classes:target/test-classes" io.nexar.transport.quic.TlsSocketBench [oneway|exchange]
 * </pre>
 *
 * <p>{@code oneway}: rank 0 writes 64 MiB, rank 1 reads it and answers one byte (QuicBench's bulk phase).
 * {@code exchange}: both write 64 MiB and read 64 MiB at the same time (nexar bench's sendrecv on 2 ranks); the rate
 * is 64 MiB over the time of one exchange.
 */
public final class TlsSocketBench {
    private static final int BYTES = 64 << 20;
    /** {@code -Dbench.warmup=N}: untimed rounds first (default 3). */
    private static final int WARMUP = Integer.getInteger("bench.warmup", 3);
    private static final int ROUNDS = Integer.getInteger("bench.rounds", 10);
    private static final int READ_BYTES = 1 << 20;

    private TlsSocketBench() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length == 0 ? "oneway" : args[0];
        if (args.length > 1 && args[1].equals("child")) {
            child(mode, Path.of(args[2]), Integer.parseInt(args[3]));
        } else {
            parent(mode);
        }
    }

    private static void parent(String mode) throws Exception {
        Path dir = Files.createTempDirectory("nexar-tls-bench");
        MemberCredentials child = QuicTestCluster.credentials(1);
        Pem.writePrivateKey(dir.resolve("key.pem"), child.privateKey());
        Pem.writeCertificates(dir.resolve("chain.pem"), child.chain());
        Pem.writeCertificates(dir.resolve("ca.pem"), List.of(child.clusterCa()));
        var context = TlsMaterial.sslContext(QuicTestCluster.credentials(0), "m1");
        try (var server = (SSLServerSocket) context.getServerSocketFactory().createServerSocket()) {
            server.setSSLParameters(TlsMaterial.serverParameters());
            server.setEnabledCipherSuites(new String[] {"TLS_AES_128_GCM_SHA256"});
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            var cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Dbench.rounds=" + ROUNDS, "-Dbench.warmup=" + WARMUP, "-cp", System.getProperty("java.class.path"),
                    TlsSocketBench.class.getName(), mode, "child", dir.toString(),
                    Integer.toString(server.getLocalPort())));
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            var childOut = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            try (var s = (SSLSocket) server.accept()) {
                s.setTcpNoDelay(true);
                s.startHandshake();
                double[] rates = run(mode, s, true);
                long childCpu = Long.parseLong(childOut.readLine().trim());
                long cpu = rates.length == 0 ? 0 : (long) rates[rates.length - 1] + childCpu;
                double gib = (mode.equals("exchange") ? 2.0 : 1.0) * ROUNDS * BYTES / (1L << 30);
                double sum = 0;
                double best = 0;
                for (int i = 0; i < ROUNDS; i++) {
                    sum += rates[i];
                    best = Math.max(best, rates[i]);
                }
                double[] sorted = java.util.Arrays.copyOf(rates, ROUNDS);
                java.util.Arrays.sort(sorted);
                System.out.printf("raw SSLSocket %s, %s: 64 MiB %.0f MB/s median, %.0f MB/s mean, %.0f MB/s best (%d"
                                + " rounds); CPU %.2f s per GiB moved (both processes); load average %.2f%n", mode,
                        s.getSession().getCipherSuite(), sorted[ROUNDS / 2], sum / ROUNDS, best, ROUNDS,
                        cpu / 1e9 / gib,
                        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            }
            p.waitFor();
        } finally {
            for (String f : new String[] {"key.pem", "chain.pem", "ca.pem"}) {
                Files.deleteIfExists(dir.resolve(f));
            }
            Files.deleteIfExists(dir);
        }
    }

    private static void child(String mode, Path dir, int port) throws Exception {
        var creds = new MemberCredentials(Pem.readPrivateKey(dir.resolve("key.pem")),
                Pem.readCertificates(dir.resolve("chain.pem")), Pem.readCertificates(dir.resolve("ca.pem")).getFirst(),
                "m1");
        var context = TlsMaterial.sslContext(creds, "m0");
        try (var s = (SSLSocket) context.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(), port)) {
            s.setSSLParameters(TlsMaterial.clientParameters());
            s.setEnabledCipherSuites(new String[] {"TLS_AES_128_GCM_SHA256"});
            s.setTcpNoDelay(true);
            s.startHandshake();
            double[] result = run(mode, s, false);
            System.out.println((long) result[result.length - 1]);
            System.out.flush();
        }
    }

    /**
     * Runs the warm-up and timed rounds; returns the rate of each timed round (MB/s, on the parent) followed by this
     * process's CPU nanoseconds over the timed rounds.
     */
    private static double[] run(String mode, SSLSocket s, boolean parent) throws Exception {
        var out = new DataOutputStream(s.getOutputStream());
        var in = new DataInputStream(s.getInputStream());
        byte[] data = new byte[BYTES];
        byte[] sink = new byte[READ_BYTES];
        double[] result = new double[ROUNDS + 1];
        long cpu0 = 0;
        for (int i = 0; i < WARMUP + ROUNDS; i++) {
            if (i == WARMUP) {
                cpu0 = cpuNanos();
            }
            long t0 = System.nanoTime();
            if (mode.equals("exchange")) {
                Thread writer = Thread.ofVirtual().start(() -> {
                    try {
                        out.write(data);
                        out.flush();
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                });
                drain(in, sink, BYTES);
                writer.join();
                out.write(1); // the round ends when both have read everything
                out.flush();
                in.readByte();
            } else if (parent) {
                out.write(data);
                out.flush();
                in.readByte();
            } else {
                drain(in, sink, BYTES);
                out.write(1);
                out.flush();
            }
            if (i >= WARMUP) {
                result[i - WARMUP] = BYTES / 1e6 / ((System.nanoTime() - t0) / 1e9);
            }
        }
        result[ROUNDS] = cpuNanos() - cpu0;
        return result;
    }

    private static void drain(DataInputStream in, byte[] sink, long bytes) throws IOException {
        long left = bytes;
        while (left > 0) {
            int n = in.read(sink, 0, (int) Math.min(sink.length, left));
            if (n < 0) {
                throw new IOException("the peer closed with " + left + " bytes to go");
            }
            left -= n;
        }
    }

    /** CPU time (user + system) of this whole process, in nanoseconds. */
    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
