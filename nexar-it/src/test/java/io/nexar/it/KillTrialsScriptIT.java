package io.nexar.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The short regression run of the kill campaign (issue 16): {@code scripts/kill-trials.sh 1 automatic 7}, one trial of
 * 4 processes with a seeded victim and moment, as a user runs it (the long campaign is the same script with more
 * trials; policy abort is covered in the suite by nexar-cli's KillTest). Runs after nexar-cli is packaged, which the
 * script's {@code ./nexar} launcher needs.
 */
class KillTrialsScriptIT {
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();

    @Test
    @Timeout(value = 200, unit = TimeUnit.SECONDS)
    void oneTrialUnderAutomaticRecoveryPasses() throws Exception {
        assertThat(lastLine(run("automatic"))).startsWith("kill trials: 1 passed, 0 failed, max detection ");
    }

    private static List<String> run(String policy) throws Exception {
        Path script = ROOT.resolve("scripts/kill-trials.sh");
        assertThat(script).exists();
        var pb = new ProcessBuilder("bash", script.toString(), "1", policy, "7").directory(ROOT.toFile())
                .redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("NEXAR_"));
        Process p = pb.start();
        var lines = new ArrayList<String>();
        try (var in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                System.out.println("kill-trials> " + line);
                lines.add(line);
            }
        } finally {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        assertThat(p.exitValue()).as(String.join("\n", lines)).isZero();
        return lines;
    }

    private static String lastLine(List<String> lines) {
        assertThat(lines).isNotEmpty();
        return lines.get(lines.size() - 1);
    }
}
