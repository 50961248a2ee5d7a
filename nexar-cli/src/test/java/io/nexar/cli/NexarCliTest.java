package io.nexar.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NexarCliTest {
    private final CliRun cli = new CliRun();

    private int run(Map<String, String> env, String... args) {
        return cli.run(env, args);
    }

    private String out() {
        return cli.out();
    }

    private String err() {
        return cli.err();
    }

    @Test
    void shouldRunTheDemoAndVerifyEveryPair() {
        int code = run(Map.of(), "demo", "--in-process", "--iters", "3");
        assertThat(code).as(out() + err()).isZero();
        assertThat(out()).contains("ring pass      ok", "all pairs      ok", "12 messages of 4096 floats, 0 mismatching",
                "16 MiB").endsWith("demo: ok" + System.lineSeparator());
    }

    @Test
    void shouldDocumentExitCodesInHelp() {
        assertThat(run(Map.of(), "--help")).isZero();
        assertThat(out()).contains("Exit codes:", "3  invalid configuration", "demo", "info");
    }

    @Test
    void shouldPrintEffectiveConfigurationWithSources() {
        assertThat(run(Map.of("NEXAR_P2P_TIMEOUT", "45s"), "info")).isZero();
        assertThat(out()).contains("nexar ", "jdk: ", "p2p.timeout", "45s", "env NEXAR_P2P_TIMEOUT", "default");
    }

    @Test
    void shouldExitWithConfigCodeNamingTheBadVariable() {
        assertThat(run(Map.of("NEXAR_CHUNK_SIZE", "lots"), "info")).isEqualTo(3);
        assertThat(err()).contains("NEXAR_CHUNK_SIZE=\"lots\": expected a size such as 64KiB or 16MiB");
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
        assertThat(run(Map.of(), "run", RunTarget.class.getName(), "--bogus", "-cp", "x")).as(err()).isZero();
        assertThat(RunTarget.args).containsExactly("--bogus", "-cp", "x");
        assertThat(run(Map.of(), "run", "-cp", "/nonexistent", RunTarget.class.getName())).isZero();
        assertThat(RunTarget.args).isEmpty();
    }

    @Test
    void shouldReportAFailingOrMissingProgram() {
        assertThat(run(Map.of(), "run", RunTarget.class.getName(), "fail")).isEqualTo(1);
        assertThat(err()).contains("nexar run: " + RunTarget.class.getName() + " failed:"
                + " java.lang.IllegalStateException: failed on purpose");
        assertThat(run(Map.of(), "run", "no.such.Main")).isEqualTo(2);
        assertThat(err()).contains("nexar run: main class no.such.Main not found on the class path (nexar's own; add"
                + " the program's with --classpath)");
        assertThat(run(Map.of(), "run", "missing.jar")).isEqualTo(2);
        assertThat(err()).contains("nexar run: jar missing.jar does not exist");
    }

    @Test
    void shouldExitWithUsageCodeOnUnknownOption() {
        assertThat(run(Map.of(), "demo", "--bogus")).isEqualTo(2);
        assertThat(err()).contains("Unknown option: '--bogus'");
    }

    @Test
    void shouldRefuseADemoOfOneRank() {
        assertThat(run(Map.of(), "demo", "--np", "1")).isEqualTo(2);
        assertThat(err()).contains("--np must be at least 2, got 1");
    }
}
