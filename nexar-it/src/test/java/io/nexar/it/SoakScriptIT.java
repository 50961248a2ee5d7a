package io.nexar.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The short regression run of the soak campaign (issue 16): {@code scripts/soak.sh 0.25}, 4 processes of
 * {@code io.nexar.examples.Soak} for 15 s with a sample every 3 s, as a user runs it (the campaign is the same script
 * for many minutes). A run this short is still in the JIT's warm-up, so RSS gets 128 MiB of room; every result must
 * be right and heap, threads and file descriptors flat. Runs after nexar-cli is packaged ({@code ./nexar}).
 */
class SoakScriptIT {
    static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aShortSoakPasses() throws Exception {
        List<String> lines = runScript("soak", Map.of("SOAK_SAMPLE_SECONDS", "3", "SOAK_MIN_OPS", "200",
                "SOAK_RSS_BOUND_MIB", "128"), "scripts/soak.sh", "0.25");
        assertThat(lines.get(lines.size() - 1)).isEqualTo("soak: 22 passed, 0 failed");
        assertThat(lines).anyMatch(l -> l.matches("\\[rank 3\\] soak done: ops=\\d+ wrong=0"));
    }

    /**
     * Runs a campaign script of the repository with {@code bash} and {@code env} (no {@code NEXAR_*} variable of this
     * JVM's), waits up to 200 s for it to exit 0, and returns its output lines (at least one), as the script wrote them.
     */
    static List<String> runScript(String name, Map<String, String> env, String script, String... args)
            throws Exception {
        Path file = ROOT.resolve(script);
        assertThat(file).exists();
        var command = new java.util.ArrayList<>(List.of("bash", file.toString()));
        command.addAll(List.of(args));
        try (var p = LabProcess.start(name, command, env)) {
            var code = p.awaitExit(Duration.ofSeconds(200));
            String output = p.output();
            assertThat(code).as("%s did not end within 200 s:%n%s", script, output).isPresent();
            assertThat(code.getAsInt()).as(output).isZero();
            String prefix = "[" + name + "] ";
            List<String> lines = output.lines().map(l -> l.substring(prefix.length())).toList();
            assertThat(lines).isNotEmpty();
            return lines;
        }
    }
}
