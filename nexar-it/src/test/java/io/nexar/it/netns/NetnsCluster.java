package io.nexar.it.netns;

import io.nexar.it.LabProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A nexar cluster in a {@link NetnsLab}: {@code nexar seed} in the router namespace (bound to the router's address,
 * so enrolment traffic is local to the router and never impaired), then one {@link NetCheck} JVM per rank, each in
 * its own namespace, joined with the environment {@code nexar launch} gives its children ({@code NEXAR_JOIN},
 * {@code NEXAR_RANK}, {@code NEXAR_WORLD_SIZE}) plus the test's settings.
 *
 * <p>The ranks run the program directly rather than through {@code nexar worker}: that command only adds a
 * supervising JVM per rank (twice the JVMs on a 2-core machine), and a rank killed by PID could then leave its
 * program running.
 *
 * <p>Workers bind the wildcard address when the seed is not on loopback and the seed publishes, for each, the
 * address its enrolment connection came from: here the rank's veth address, {@code 198.18.R.2}.
 */
final class NetnsCluster {
    private final NetnsLab lab;
    private final int worldSize;
    /** How every rank finds the cluster: NEXAR_JOIN, or the seedless launch's MASTER_ADDR, MASTER_PORT, NEXAR_TOKEN. */
    private final Map<String, String> joinEnv;
    private final List<LabProcess> ranks = new ArrayList<>();

    private NetnsCluster(NetnsLab lab, int worldSize, Map<String, String> joinEnv) {
        this.lab = lab;
        this.worldSize = worldSize;
        this.joinEnv = Map.copyOf(joinEnv);
    }

    /**
     * A cluster without a seed process, as torchrun, srun or a Kubernetes Job start one: every rank gets only
     * {@code MASTER_ADDR} (rank 0's own address, in rank 0's namespace), {@code MASTER_PORT}, {@code WORLD_SIZE},
     * {@code RANK} and {@code NEXAR_TOKEN}; rank 0 starts the seed in its process (docs/launching.md).
     */
    static NetnsCluster seedless(NetnsLab lab, int worldSize, int port, String token) {
        return new NetnsCluster(lab, worldSize, Map.of("MASTER_ADDR", lab.rankAddress(0), "MASTER_PORT",
                String.valueOf(port), "NEXAR_TOKEN", token));
    }

    /** Starts the seed and waits (bounded) for its join string. */
    static NetnsCluster seed(NetnsLab lab, int worldSize) throws IOException, InterruptedException {
        LabProcess seed = lab.start(lab.router(), "seed", java("io.nexar.cli.NexarCli", List.of("seed", "-n",
                String.valueOf(worldSize), "--bind", lab.routerAddress() + ":0", "--formation-timeout", "60s")),
                Map.of());
        var line = seed.awaitLine(l -> l.startsWith("join: "), Duration.ofSeconds(30))
                .orElseThrow(() -> new IllegalStateException("the seed printed no join string in 30 s:\n"
                        + seed.output()));
        return new NetnsCluster(lab, worldSize, Map.of("NEXAR_JOIN", line.text().substring("join: ".length()).strip()));
    }

    /**
     * Starts every rank running {@code NetCheck args...} with {@code settings} (NEXAR_* variables) in its
     * environment.
     */
    List<LabProcess> startRanks(Map<String, String> settings, List<String> args) throws IOException {
        return startRanks(r -> settings, args);
    }

    /** Like {@link #startRanks(Map, List)} with settings of each rank's own. */
    List<LabProcess> startRanks(java.util.function.IntFunction<Map<String, String>> settings, List<String> args)
            throws IOException {
        for (int r = 0; r < worldSize; r++) {
            var env = new HashMap<>(settings.apply(r));
            env.putAll(joinEnv);
            boolean seedless = joinEnv.containsKey("MASTER_ADDR");
            env.put(seedless ? "RANK" : "NEXAR_RANK", String.valueOf(r));
            env.put(seedless ? "WORLD_SIZE" : "NEXAR_WORLD_SIZE", String.valueOf(worldSize));
            ranks.add(lab.start(lab.rankNamespace(r), "rank " + r, java(NetCheck.class.getName(), args), env));
        }
        return List.copyOf(ranks);
    }

    List<LabProcess> ranks() {
        return List.copyOf(ranks);
    }

    /**
     * Waits until every rank has exited, or (if {@code stopAtFailure}) one has exited with a non-zero code, or
     * {@code timeout} passes. Returns the exit code of each rank, -1 for one still running.
     */
    int[] awaitExit(Duration timeout, boolean stopAtFailure) throws InterruptedException {
        var failed = new CompletableFuture<Void>();
        var exits = new ArrayList<CompletableFuture<Process>>();
        for (LabProcess p : ranks) {
            exits.add(p.onExit().whenComplete((proc, e) -> {
                if (stopAtFailure && proc != null && proc.exitValue() != 0) {
                    failed.complete(null);
                }
            }));
        }
        try {
            CompletableFuture.anyOf(CompletableFuture.allOf(exits.toArray(CompletableFuture[]::new)), failed)
                    .get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // Reported through the codes: -1 for every rank still running.
        }
        var codes = new int[ranks.size()];
        for (int r = 0; r < codes.length; r++) {
            codes[r] = ranks.get(r).isAlive() ? -1 : ranks.get(r).awaitExit(Duration.ZERO).orElse(-1);
        }
        return codes;
    }

    /** Every rank's output, for assertion messages. */
    String output() {
        var sb = new StringBuilder();
        for (LabProcess p : ranks) {
            sb.append(p.output());
        }
        return sb.toString();
    }

    /** A JVM command line running {@code mainClass} on this test's class path (nexar, its QUIC transport, NetCheck). */
    static List<String> java(String mainClass, List<String> args) {
        var cmd = new ArrayList<String>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        // Small, short-lived JVMs, four or five at a time on two cores.
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Xmx256m");
        cmd.add("-cp");
        cmd.add(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }
}
