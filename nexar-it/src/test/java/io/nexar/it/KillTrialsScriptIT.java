package io.nexar.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
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
    @Test
    @Timeout(value = 200, unit = TimeUnit.SECONDS)
    void oneTrialUnderAutomaticRecoveryPasses() throws Exception {
        // the short-lived JVMs start as NetnsCluster's do (C1 only, serial collector): much less CPU on two cores;
        // detection is timed from the kill, which these options do not change
        String fast = String.join(" ", LabProcess.FAST_START);
        List<String> lines = SoakScriptIT.runScript("kill-trials", Map.of("NEXAR_JAVA_OPTS", fast,
                "NEXAR_WORKER_JAVA_OPTS", fast), "scripts/kill-trials.sh", "1", "automatic", "7");
        assertThat(lines.get(lines.size() - 1)).startsWith("kill trials: 1 passed, 0 failed, max detection ");
    }
}
