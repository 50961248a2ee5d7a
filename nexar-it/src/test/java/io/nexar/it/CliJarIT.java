package io.nexar.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The packaged command as a user runs it, {@code java -jar nexar-cli/target/nexar-cli.jar launch ...} (issue 18 item
 * 6): the jar is thin, its manifest names the plain jars of {@code lib/}, and the program that {@code launch} starts
 * loads nexar, Netty, BouncyCastle and SLF4J from their own jars, not from a shaded copy inside the command's jar.
 */
class CliJarIT {
    private static final int WORLD = 2;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldLaunchAProgramWithNexarsPlainJarsOnItsClassPath() throws Exception {
        Path jar = Path.of(System.getProperty("nexar.cli.jar", "../nexar-cli/target/nexar-cli.jar"));
        assertThat(jar).as("the packaged command (./mvnw -pl nexar-cli -am package)").isRegularFile();
        try (var file = new JarFile(jar.toFile())) {
            assertThat(file.getEntry("io/netty/channel/Channel.class")).as("Netty inside the command's jar").isNull();
            String classPath = file.getManifest().getMainAttributes().getValue("Class-Path");
            assertThat(classPath).as("Class-Path of %s", jar).contains("lib/nexar-core-", "lib/netty-transport-");
            for (String entry : classPath.split(" ")) {
                assertThat(jar.resolveSibling(entry)).as("a jar the manifest names").isRegularFile();
            }
        }
        Path probe = Path.of(ClassPathProbe.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        var cmd = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED"));
        cmd.addAll(LabProcess.FAST_START);
        cmd.addAll(List.of("-jar", jar.toString(), "launch", "-n", String.valueOf(WORLD), "--timeout", "90s",
                "--classpath", probe.toString(), ClassPathProbe.class.getName()));
        try (LabProcess launch = LabProcess.start("launch", cmd,
                Map.of("NEXAR_WORKER_JAVA_OPTS", String.join(" ", LabProcess.FAST_START)))) {
            OptionalInt code = launch.awaitExit(Duration.ofSeconds(100));
            assertThat(code).as("exit code of nexar launch\n%s", launch.output()).hasValue(0);
            String out = launch.output();
            for (int r = 0; r < WORLD; r++) {
                assertThat(out).contains("[rank " + r + "] rank=" + r + " sum=3");
                assertThat(out).contains("[rank " + r + "] source io.nexar.Nexar nexar-core-",
                        "[rank " + r + "] source io.netty.channel.Channel netty-transport-",
                        "[rank " + r + "] source org.bouncycastle.asn1.ASN1Object bcprov-",
                        "[rank " + r + "] source org.slf4j.LoggerFactory slf4j-api-");
            }
            assertThat(out).doesNotContain(" nexar-cli.jar");
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void shouldPutNoTestLibraryInTheCommandsLib() throws Exception {
        Path lib = Path.of(System.getProperty("nexar.cli.jar", "../nexar-cli/target/nexar-cli.jar")).resolveSibling("lib");
        try (var jars = Files.list(lib)) {
            assertThat(jars.map(p -> p.getFileName().toString()).toList()).as("jars in %s", lib)
                    .anyMatch(n -> n.startsWith("nexar-testkit-"))
                    .noneMatch(n -> n.startsWith("junit-") || n.startsWith("assertj-") || n.startsWith("opentest4j-"));
        }
    }
}
