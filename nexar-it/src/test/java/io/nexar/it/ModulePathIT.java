package io.nexar.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.lang.module.FindException;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The modular application of this module's src/main ({@code module io.nexar.it.consumer}, which requires only
 * {@code io.nexar}) run as a user runs one: one JVM per rank with {@code --module-path}, joined through
 * {@code nexar seed} on loopback. Each rank all-reduces {@code rank + 1}, prints the sum and exits 0; each also
 * reports which packages {@code io.nexar} and the transport export to the world: only the API.
 *
 * <p>The module path is every entry of this test's class path that is a module (explicit modules: nexar's, Netty's,
 * BouncyCastle's, SLF4J's, the test libraries', which nothing requires and so stay out of the module graph) plus
 * nexar's own jars even if they are not modules; third-party automatic modules are left out, as a modular
 * application would not have them.
 */
class ModulePathIT {
    private static final int WORLD = 2;
    private static final String APP = "io.nexar.it.consumer/io.nexar.it.consumer.ModularAllReduce";
    /** Netty's per-platform native modules, e.g. io.netty.codec.quic.linux.x86_64: nothing requires them. */
    private static final Pattern NATIVE = Pattern.compile("io\\.netty\\..*\\.(linux|osx|windows)\\.[a-z0-9_]+");

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldAllReduceAcrossProcessesOnTheModulePath() throws Exception {
        try (LabProcess seed = LabProcess.start("seed", classPathJava("io.nexar.cli.NexarCli", List.of("seed", "-n",
                String.valueOf(WORLD), "--bind", "127.0.0.1:0", "--formation-timeout", "60s")), Map.of())) {
            String join = seed.awaitLine(l -> l.startsWith("join: "), Duration.ofSeconds(30))
                    .orElseThrow(() -> new AssertionError("the seed printed no join string:\n" + seed.output()))
                    .text().substring("join: ".length()).strip();
            var ranks = new ArrayList<LabProcess>();
            try {
                for (int r = 0; r < WORLD; r++) {
                    ranks.add(LabProcess.start("rank " + r, modularJava(true), Map.of("NEXAR_JOIN", join,
                            "NEXAR_RANK", String.valueOf(r), "NEXAR_WORLD_SIZE", String.valueOf(WORLD))));
                }
                for (int r = 0; r < WORLD; r++) {
                    LabProcess rank = ranks.get(r);
                    OptionalInt code = rank.awaitExit(Duration.ofSeconds(60));
                    assertThat(code).as("exit code of rank %d\n%s", r, rank.output()).hasValue(0);
                    assertThat(lines(rank)).as(rank.output()).contains(
                            "modules app=io.nexar.it.consumer nexar=io.nexar transport=io.nexar.transport.quic",
                            "exports io.nexar=io.nexar,io.nexar.device,io.nexar.rpc,io.nexar.spi",
                            "exports io.nexar.transport.quic=",
                            "rank=" + r + " size=" + WORLD + " sum=3");
                }
            } finally {
                ranks.forEach(LabProcess::close);
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldSayWhichModulesToAddWhenNativeQuicIsMissing() throws Exception {
        // No seed: without a usable transport the join fails before it connects anywhere.
        try (LabProcess app = LabProcess.start("no natives", modularJava(false), Map.of("NEXAR_JOIN",
                "nexar://127.0.0.1:9?token=unused&ca=sha256:00", "NEXAR_RANK", "0"))) {
            OptionalInt code = app.awaitExit(Duration.ofSeconds(45));
            assertThat(code).as(app.output()).isPresent();
            assertThat(code.getAsInt()).as(app.output()).isNotZero();
            assertThat(app.output()).contains("native QUIC not loaded").contains(
                    "--add-modules io.netty.codec.quic.linux.x86_64");
        }
    }

    private static List<String> lines(LabProcess p) {
        return p.output().lines().map(l -> l.substring(l.indexOf("] ") + 2)).toList();
    }

    /** A JVM running the consumer application from the module path; with Netty's native modules added or not. */
    private static List<String> modularJava(boolean addNatives) {
        List<Path> modulePath = new ArrayList<>();
        List<String> natives = new ArrayList<>();
        for (String entry : testClassPath()) {
            Path path = Path.of(entry);
            Optional<ModuleReference> module = module(path);
            boolean nexarJar = path.getFileName().toString().startsWith("nexar-") && entry.endsWith(".jar");
            if (module.isPresent() && !module.get().descriptor().isAutomatic() || nexarJar) {
                modulePath.add(path);
                module.map(m -> m.descriptor().name()).filter(n -> NATIVE.matcher(n).matches())
                        .ifPresent(natives::add);
            }
        }
        var cmd = jvm();
        cmd.add("--module-path");
        cmd.add(String.join(File.pathSeparator, modulePath.stream().map(Path::toString).toList()));
        if (addNatives) {
            assertThat(natives).as("Netty's native modules on the test class path").isNotEmpty();
            cmd.add("--add-modules");
            cmd.add(String.join(",", natives));
        }
        cmd.add("--enable-native-access=io.netty.common");
        cmd.add("-m");
        cmd.add(APP);
        return cmd;
    }

    /** The module {@code path} holds: a jar (explicit or automatic module) or a directory with module-info.class. */
    private static Optional<ModuleReference> module(Path path) {
        if (Files.isDirectory(path) && !Files.isRegularFile(path.resolve("module-info.class"))) {
            return Optional.empty();
        }
        try {
            var all = ModuleFinder.of(path).findAll();
            return all.size() == 1 ? all.stream().findFirst() : Optional.empty();
        } catch (FindException e) {
            return Optional.empty();    // not a module (e.g. no valid automatic module name)
        }
    }

    /** A JVM running {@code mainClass} on this test's class path (nexar's CLI, for the seed). */
    private static List<String> classPathJava(String mainClass, List<String> args) {
        var cmd = jvm();
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("-cp");
        cmd.add(String.join(File.pathSeparator, testClassPath()));
        cmd.add(mainClass);
        cmd.addAll(args);
        return cmd;
    }

    private static List<String> jvm() {
        var cmd = new ArrayList<String>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // Small, short-lived JVMs, three at a time on two cores.
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Xmx256m");
        return cmd;
    }

    private static List<String> testClassPath() {
        String cp = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        return List.of(cp.split(Pattern.quote(File.pathSeparator)));
    }
}
