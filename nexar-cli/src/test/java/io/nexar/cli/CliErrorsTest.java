package io.nexar.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.transport.quic.security.JoinToken;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 18 item 5: exit codes exactly as {@code nexar --help} documents them (2 usage, 3 configuration, 1 the job
 * failed), one-line errors (a usage error adds one hint line, never the whole usage), and every check made in this
 * process before any worker JVM starts. Commands run in-process with their own environment.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CliErrorsTest {
    private static final String CA = "sha256:" + "ab".repeat(32);

    private final CliRun cli = new CliRun();

    @Test
    void shouldPrintAnUnknownOptionAndOneHintLineNotTheUsage() {
        assertThat(cli.run("demo", "--bogus")).isEqualTo(ExitCodes.USAGE);
        assertThat(cli.errLines()).containsExactly("nexar demo: Unknown option: '--bogus'",
                "Run 'nexar demo --help' for usage.");
    }

    @Test
    void shouldPrintAMissingOptionAndOneHintLine() {
        assertThat(cli.run("seed")).isEqualTo(ExitCodes.USAGE);
        assertThat(cli.errLines()).hasSize(2).last().isEqualTo("Run 'nexar seed --help' for usage.");
        assertThat(cli.errLines().getFirst()).startsWith("nexar seed: Missing required option: '--world-size=");
    }

    @Test
    void shouldSuggestTheClosestSubcommand() {
        assertThat(cli.run("lanch")).isEqualTo(ExitCodes.USAGE);
        assertThat(cli.errLines()).hasSize(2);
        assertThat(cli.errLines().getFirst()).contains("Unmatched argument at index 0: 'lanch'", "did you mean launch");
    }

    @Test
    void shouldFormatEveryCommandsHelpWithoutAPicocliWarning() {
        // picocli's tracer writes to System.err itself: a '%' not doubled in a description warns there, once per JVM
        var original = System.err;
        var captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            for (String command : new String[] {"seed", "worker", "launch", "run", "demo", "bench", "info"}) {
                assertThat(cli.run(command, "--help")).as(command).isZero();
            }
        } finally {
            System.setErr(original);
        }
        assertThat(captured.toString(java.nio.charset.StandardCharsets.UTF_8)).doesNotContain("picocli WARN");
        assertThat(cli.out()).contains("1% of the elements");
    }

    @Test
    void shouldStillPrintTheUsageOnHelp() {
        assertThat(cli.run("seed", "--help")).isZero();
        assertThat(cli.out()).contains("Usage: nexar seed", "--bind");
    }

    @Test
    void shouldStopTheDemoWithOneLineOnABadVariableBeforeAnyWorkerStarts() {
        assertThat(cli.run(Map.of("NEXAR_RECOVERY_POLICY", "sometimes"), "demo")).isEqualTo(ExitCodes.CONFIG);
        assertThat(cli.errLines()).containsExactly("nexar demo: configure failed: NEXAR_RECOVERY_POLICY=\"sometimes\":"
                + " expected one of abort, manual, automatic");
        assertThat(cli.out()).doesNotContain("pid=");
    }

    @Test
    void shouldStopLaunchAndBenchWithOneLineOnAMisspeltVariable() {
        var env = Map.of("NEXAR_P2P_TIMOUT", "5s");
        assertThat(cli.run(env, "launch", "-n", "2", "io.nexar.cli.TestChild", "ok", "x")).isEqualTo(ExitCodes.CONFIG);
        assertThat(cli.run(env, "bench", "-n", "2", "--op", "allreduce")).isEqualTo(ExitCodes.CONFIG);
        assertThat(cli.errLines()).containsExactly(
                "nexar launch: configure failed: environment variable NEXAR_P2P_TIMOUT is not a nexar setting; did"
                        + " you mean NEXAR_P2P_TIMEOUT? (docs/config.md lists them)",
                "nexar bench: configure failed: environment variable NEXAR_P2P_TIMOUT is not a nexar setting; did"
                        + " you mean NEXAR_P2P_TIMEOUT? (docs/config.md lists them)");
        assertThat(cli.out()).doesNotContain("pid=");
    }

    @Test
    void shouldRejectAMisspeltSystemPropertyInTheParent() {
        int code = cli.run(Map.of(), Map.of("nexar.p2p.timout", "5s"), "launch", "-n", "2", "io.nexar.cli.TestChild",
                "ok", "x");
        assertThat(code).isEqualTo(ExitCodes.CONFIG);
        assertThat(cli.errLines()).singleElement().asString().contains("system property nexar.p2p.timout",
                "did you mean nexar.p2p.timeout?");
    }

    @Test
    void shouldReportABadBindAddressAsAConfigurationError() {
        assertThat(cli.run("seed", "-n", "1", "--bind", "foo")).isEqualTo(ExitCodes.CONFIG);
        assertThat(cli.run("seed", "-n", "1", "--bind", "127.0.0.1:99999")).isEqualTo(ExitCodes.CONFIG);
        assertThat(cli.errLines()).containsExactly(
                "nexar seed: configure failed: --bind=\"foo\": expected HOST:PORT or [V6]:PORT with a port in"
                        + " [0, 65535]",
                "nexar seed: configure failed: --bind=\"127.0.0.1:99999\": expected HOST:PORT or [V6]:PORT with a"
                        + " port in [0, 65535]; port 99999 is not in [0, 65535]");
    }

    @Test
    void shouldPrintAnAddressInUseWithoutASlash() throws Exception {
        try (var taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();
            assertThat(cli.run("seed", "-n", "1", "--bind", "127.0.0.1:" + port)).isEqualTo(ExitCodes.FAILED);
            assertThat(cli.errLines()).singleElement().asString()
                    .startsWith("nexar seed: seed cannot listen on 127.0.0.1:" + port + ": ");
        }
    }

    @Test
    void shouldReportAMissingJarAsAUsageError() {
        assertThat(cli.run("launch", "-n", "2", "/nonexistent/app.jar")).isEqualTo(ExitCodes.USAGE);
        assertThat(cli.errLines()).containsExactly("nexar launch: jar /nonexistent/app.jar does not exist",
                "Run 'nexar launch --help' for usage.");
    }

    @Test
    void shouldCheckTheMainClassBeforeStartingAnyWorker() {
        assertThat(cli.run("launch", "-n", "4", "com.example.NoSuchMain")).isEqualTo(ExitCodes.USAGE);
        assertThat(cli.errLines()).containsExactly("nexar launch: main class com.example.NoSuchMain not found on the"
                + " class path (nexar's own; add the program's with --classpath)", "Run 'nexar launch --help' for usage.");
        assertThat(cli.out()).doesNotContain("pid=");
    }

    @Test
    void shouldReportAMalformedJoinStringNamingTheFlagWithoutTheToken() {
        String token = JoinToken.generate().encoded();
        assertThat(cli.run("worker", "--join", "garbage", "io.nexar.cli.TestChild", "ok", "x"))
                .isEqualTo(ExitCodes.CONFIG);
        assertThat(cli.run("worker", "--join", "nexar://127.0.0.1:7000?ca=" + CA, "io.nexar.cli.TestChild", "ok", "x"))
                .isEqualTo(ExitCodes.CONFIG);
        assertThat(cli.run("worker", "--join", "nexar://127.0.0.1:99999?token=" + token + "&ca=" + CA,
                "io.nexar.cli.TestChild", "ok", "x")).isEqualTo(ExitCodes.CONFIG);
        List<String> lines = cli.errLines();
        assertThat(lines).hasSize(3).allMatch(l -> l.startsWith("nexar worker: configure failed: --join=\""));
        assertThat(lines.get(0)).endsWith("; join string must start with nexar://");
        assertThat(lines.get(1)).endsWith("; join string is missing the token parameter (token=SECRET)");
        assertThat(lines.get(2)).contains("?token=***&ca=").endsWith("; join string port 99999 is not in [1, 65535]")
                .doesNotContain(token);
        assertThat(cli.out()).doesNotContain("pid=");
    }

    @Test
    void shouldCheckAWorkersConfigurationBeforeStartingIt() {
        String join = "nexar://127.0.0.1:7000?token=" + JoinToken.generate().encoded() + "&ca=" + CA;
        assertThat(cli.run(Map.of("NEXAR_CHUNK_SIZE", "lots"), "worker", "--join", join, "io.nexar.cli.TestChild", "ok",
                "x")).isEqualTo(ExitCodes.CONFIG);
        assertThat(cli.run(Map.of("NEXAR_WORLD_SIZE", "none"), "worker", "--join", join, "io.nexar.cli.TestChild", "ok",
                "x")).isEqualTo(ExitCodes.CONFIG);
        assertThat(cli.errLines()).containsExactly("nexar worker: configure failed: NEXAR_CHUNK_SIZE=\"lots\": expected a"
                + " size such as 64KiB or 16MiB", "nexar worker: configure failed: NEXAR_WORLD_SIZE=\"none\": expected"
                + " an integer >= 1");
        assertThat(cli.out()).doesNotContain("pid=");
    }

    /** A program run without the CLI: Nexar.join() names the variable the malformed join string came from. */
    @Test
    void shouldNameNexarJoinWhenAProgramJoinsWithAMalformedJoinString() throws Exception {
        var pb = new ProcessBuilder(CliProcess.javaCommand("io.nexar.examples.AllReduce")).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("NEXAR_"));
        pb.environment().put("NEXAR_JOIN", "garbage");
        Process p = pb.start();
        p.getOutputStream().close();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(output).isNotZero();
        assertThat(output).contains("InvalidConfigurationException: configure failed: NEXAR_JOIN=\"garbage\": expected"
                + " the nexar://HOST:PORT?token=SECRET&ca=sha256:FINGERPRINT line that `nexar seed` prints; join"
                + " string must start with nexar://");
    }

    @Test
    void shouldPrintTheLaunchTimeoutAsADuration() {
        int code = cli.run("launch", "-n", "1", "--timeout", "1500ms", "io.nexar.cli.TestChild", "block");
        assertThat(code).isEqualTo(ExitCodes.FAILED);
        assertThat(cli.errLines()).contains("nexar: ranks still running after 1.5s: stopping them");
    }
}
