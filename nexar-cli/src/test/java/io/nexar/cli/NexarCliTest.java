package io.nexar.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NexarCliTest {
    private final CliRun cli = new CliRun();

    @Test
    void shouldRunTheDemoAndVerifyEveryPair() {
        int code = cli.run(Map.of(), "demo", "--in-process", "--iters", "3");
        assertThat(code).as(cli.out() + cli.err()).isZero();
        assertThat(cli.out()).contains("ring pass      ok", "all pairs      ok", "12 messages of 4096 floats, 0 mismatching",
                "16 MiB").endsWith("demo: ok" + System.lineSeparator());
    }

    @Test
    void shouldDocumentExitCodesInHelp() {
        assertThat(cli.run(Map.of(), "--help")).isZero();
        assertThat(cli.out()).contains("Exit codes:", "3  invalid configuration", "demo", "info");
    }

    @Test
    void shouldPrintEffectiveConfigurationWithSources() {
        assertThat(cli.run(Map.of("NEXAR_P2P_TIMEOUT", "45s"), "info")).isZero();
        assertThat(cli.out()).contains("nexar ", "jdk: ", "p2p.timeout", "45s", "env NEXAR_P2P_TIMEOUT", "default");
    }

    @Test
    void shouldExitWithConfigCodeNamingTheBadVariable() {
        assertThat(cli.run(Map.of("NEXAR_CHUNK_SIZE", "lots"), "info")).isEqualTo(3);
        assertThat(cli.err()).contains("NEXAR_CHUNK_SIZE=\"lots\": expected a size such as 64KiB or 16MiB");
    }

    /** A program for {@code nexar run}: records its arguments, and fails when asked to. */
    public static final class RunTarget {
        static volatile java.util.List<String> args;

        public static void main(String[] args) {
            RunTarget.args = java.util.List.of(args);
            if (args.length > 0 && args[0].equals("fail")) {
                throw new IllegalStateException("failed on purpose");
            }
        }
    }

    @Test
    void shouldRunAMainClassInThisJvmPassingEveryArgumentAfterIt() {
        assertThat(cli.run(Map.of(), "run", RunTarget.class.getName(), "--bogus", "-cp", "x")).as(cli.err()).isZero();
        assertThat(RunTarget.args).containsExactly("--bogus", "-cp", "x");
        assertThat(cli.run(Map.of(), "run", "-cp", "/nonexistent", RunTarget.class.getName())).isZero();
        assertThat(RunTarget.args).isEmpty();
    }

    @Test
    void shouldReportAFailingOrMissingProgram() {
        assertThat(cli.run(Map.of(), "run", RunTarget.class.getName(), "fail")).isEqualTo(1);
        assertThat(cli.err()).contains("nexar run: " + RunTarget.class.getName() + " failed:"
                + " java.lang.IllegalStateException: failed on purpose");
        assertThat(cli.run(Map.of(), "run", "no.such.Main")).isEqualTo(2);
        assertThat(cli.err()).contains("nexar run: main class no.such.Main not found on the class path (nexar's own; add"
                + " the program's with --classpath)");
        assertThat(cli.run(Map.of(), "run", "missing.jar")).isEqualTo(2);
        assertThat(cli.err()).contains("nexar run: jar missing.jar does not exist");
    }

    @Test
    void shouldExitWithUsageCodeOnUnknownOption() {
        assertThat(cli.run(Map.of(), "demo", "--bogus")).isEqualTo(2);
        assertThat(cli.err()).contains("Unknown option: '--bogus'");
    }

    @Test
    void shouldRefuseADemoOfOneRank() {
        assertThat(cli.run(Map.of(), "demo", "--np", "1")).isEqualTo(2);
        assertThat(cli.err()).contains("--np must be at least 2, got 1");
    }
}
