package io.nexar.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17 item 4: {@code nexar seed --join-file F} writes the join string for job scripts (mode 0600, whole), and
 * {@code nexar worker --join-file F} reads it, waiting for a seed started at the same time. Commands run in-process.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class JoinFileTest {
    @TempDir
    Path dir;

    private static int run(ByteArrayOutputStream out, ByteArrayOutputStream err, String... args) {
        return NexarCli.run(new CliContext(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of(), Map.of()), args);
    }

    @Test
    void aWorkerStartedBeforeItsSeedFormsThroughTheJoinFile() throws Exception {
        Path file = dir.resolve("job/join");
        Files.createDirectories(file.getParent());
        var workerOut = new ByteArrayOutputStream();
        var workerErr = new ByteArrayOutputStream();
        // the worker first: it waits for the file
        var worker = CompletableFuture.supplyAsync(() -> run(workerOut, workerErr, "worker", "--join-file",
                file.toString(), "--timeout", "60s", "io.nexar.examples.AllReduce"));
        var seedOut = new ByteArrayOutputStream();
        var seedErr = new ByteArrayOutputStream();
        int seed = run(seedOut, seedErr, "seed", "-n", "1", "--bind", "127.0.0.1:0", "--formation-timeout", "60s",
                "--join-file", file.toString());
        assertThat(seed).as(seedErr.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(worker.get(60, TimeUnit.SECONDS)).as(workerOut + "\n" + workerErr).isZero();
        String printed = seedOut.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("join: "))
                .findFirst().orElseThrow().substring("join: ".length());
        assertThat(Files.readString(file)).isEqualTo(printed + "\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        assertThat(workerOut.toString(StandardCharsets.UTF_8)).contains("rank 0: [0.0");
        try (var left = Files.list(file.getParent())) {
            assertThat(left).containsExactly(file); // no temporary file left beside it
        }
    }

    @Test
    void aJoinFileThatNeverAppearsIsAConfigurationErrorNamingIt() {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        Path missing = dir.resolve("never");
        assertThat(run(out, err, "worker", "--join-file", missing.toString(), "--join-wait", "300ms",
                "io.nexar.examples.AllReduce")).isEqualTo(ExitCodes.CONFIG);
        assertThat(err.toString(StandardCharsets.UTF_8).strip()).isEqualTo("nexar worker: configure failed:"
                + " --join-file=\"" + missing + "\": expected a file holding the join string that `nexar seed"
                + " --join-file` writes; it did not appear within 300ms");
    }

    @Test
    void joinAndJoinFileTogetherOrNeitherIsAUsageError() {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        assertThat(run(out, err, "worker", "io.nexar.examples.AllReduce")).isEqualTo(ExitCodes.USAGE);
        assertThat(run(out, err, "worker", "--join", "x", "--join-file", "y", "io.nexar.examples.AllReduce"))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith("nexar worker:")))
                .containsOnly("nexar worker: give the join string with --join or --join-file (one of them)");
    }

    /** Issue 17 item 4: a rank whose launcher says another world size than the seed formed fails, naming both. */
    @Test
    void aWorldSizeThatDiffersFromTheSeedsFailsTheRankNamingTheVariable() throws Exception {
        Path file = dir.resolve("join");
        var seedOut = new ByteArrayOutputStream();
        var seed = CompletableFuture.supplyAsync(() -> run(seedOut, new ByteArrayOutputStream(), "seed", "-n", "1",
                "--bind", "127.0.0.1:0", "--formation-timeout", "60s", "--join-file", file.toString()));
        var pb = new ProcessBuilder(CliProcess.javaCommand("io.nexar.examples.AllReduce")).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("NEXAR_") || k.equals("WORLD_SIZE"));
        pb.environment().put("NEXAR_JOIN", JoinFile.read(file, java.time.Duration.ofSeconds(60), System.out));
        pb.environment().put("WORLD_SIZE", "2");
        Process p = pb.start();
        p.getOutputStream().close();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(output).isNotZero();
        assertThat(output).contains("ClusterFormationException: join on rank 0 (world 1, comm 0) failed: WORLD_SIZE"
                + " says the world has 2 ranks, but the seed formed a world of 1");
        assertThat(seed.get(60, TimeUnit.SECONDS)).isZero();
    }
}
