package io.nexar.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.event.Level;

/**
 * {@code -v} / {@code --log-level} and the command's log backend (docs/logging.md): the level reaches the JVMs that
 * {@code nexar launch} starts, their lines carry rank, world and communicator from the MDC, and the lifecycle lines
 * of a real cluster look as the docs show them.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LogOptionsTest {
    private final CliRun cli = new CliRun();

    @Test
    void shouldFormatALineWithWhatTheMdcHolds() {
        assertThat(CliLogger.format(Level.WARN, "HangReports", "2", "4", "0", "nexar hang report: x"))
                .isEqualTo("WARN  [rank 2/4, comm 0] HangReports: nexar hang report: x");
        assertThat(CliLogger.format(Level.INFO, "Connection", "1", "3", null, "connection up: world rank 0"))
                .isEqualTo("INFO  [rank 1/3] Connection: connection up: world rank 0");
        assertThat(CliLogger.format(Level.DEBUG, "SeedServer", null, null, null, "m"))
                .isEqualTo("DEBUG SeedServer: m");
    }

    @Test
    void shouldParseLevelsAndRefuseOthers() {
        assertThat(CliLogProvider.parse("DEBUG")).isEqualTo(Level.DEBUG.toInt());
        assertThat(CliLogProvider.parse(" warning ")).isEqualTo(Level.WARN.toInt());
        assertThat(CliLogProvider.parse("off")).isEqualTo(Integer.MAX_VALUE);
        assertThat(CliLogProvider.enabled("io.nexar.x", Level.WARN)).isTrue();
        assertThat(CliLogProvider.enabled("io.netty.x", Level.INFO)).isFalse();
    }

    @Test
    void shouldRefuseAnUnknownLevelAsAUsageError() {
        assertThat(cli.run(Map.of(), "seed", "-n", "1", "--log-level", "loud")).isEqualTo(ExitCodes.USAGE);
        assertThat(cli.err()).contains("--log-level: \"loud\" is not a log level: expected trace, debug, info, warn,"
                + " error or off").doesNotContain("Usage:");
    }

    @Test
    void shouldRefuseABadLevelInTheEnvironmentBeforeAnyRankStarts() {
        assertThat(cli.run(Map.of("NEXAR_LOG_LEVEL", "loud"), "launch", "-n", "1", "io.nexar.cli.TestChild", "ok", "x"))
                .isEqualTo(ExitCodes.CONFIG);
        assertThat(cli.err()).contains("NEXAR_LOG_LEVEL=\"loud\": expected trace, debug, info, warn, error or off");
        assertThat(cli.out()).doesNotContain("pid=");
    }

    @Test
    void shouldOfferTheFlagsOnEveryCommandThatRunsRanks() {
        for (String command : new String[] {"demo", "bench", "launch", "worker", "seed", "run"}) {
            cli.resetOut();
            assertThat(cli.run(Map.of(), command, "--help")).isZero();
            assertThat(cli.out()).as(command).contains("-v, --verbose", "--log-level=LEVEL");
        }
    }

    /** -v reaches every child as NEXAR_LOG_LEVEL=debug; each child's lines carry its rank from the MDC. */
    @Test
    void shouldPassVerboseToEveryRankWithTheRankInEachLine() {
        int code = cli.run(Map.of(), "launch", "-n", "2", "-v", "io.nexar.cli.LogChild");
        assertThat(code).as(cli.out() + cli.err()).isZero();
        for (int r = 0; r < 2; r++) {
            assertThat(cli.out()).containsPattern("(?m)^rank=" + r + " pid=\\d+$")
                    .contains("[rank " + r + "] level debug rank " + r);
            assertThat(cli.err()).contains("[rank " + r + "] INFO  [rank " + r + "/2] LogChild: on a nexar thread",
                    "[rank " + r + "] WARN  [rank " + r + "/2, comm 5] LogChild: inside a scope",
                    "[rank " + r + "] DEBUG LogChild: no MDC after the scope");
        }
        assertThat(cli.err()).doesNotContain("another library's info line");
    }

    /** Without a flag the children log at warn (or at what NEXAR_LOG_LEVEL in the environment says). */
    @Test
    void shouldLogAtWarnByDefault() {
        int code = cli.run(Map.of(), "launch", "-n", "1", "io.nexar.cli.LogChild");
        assertThat(code).as(cli.out() + cli.err()).isZero();
        assertThat(cli.out()).contains("[rank 0] level null rank 0");
        assertThat(cli.err()).contains("[rank 0] WARN  [rank 0/1, comm 5] LogChild: inside a scope")
                .doesNotContain("on a nexar thread", "no MDC after the scope");
    }

    /** The lifecycle lines of a real cluster at info: join, formation, connections, close, one line each. */
    @Test
    void shouldLogOneLinePerLifecycleEventAtInfo() {
        int code = cli.run(Map.of(), "launch", "-n", "2", "--log-level", "info", "io.nexar.examples.Barrier");
        assertThat(code).as(cli.out() + cli.err()).isZero();
        for (int r = 0; r < 2; r++) {
            int peer = 1 - r;
            assertThat(cli.err()).containsPattern("\\[rank " + r + "\\] INFO  \\[rank " + r + "/2\\] WorkerEnrolment:"
                    + " join: joined the cluster at \\S+ as rank " + r + " of 2 \\(member \\S+\\)")
                    .containsPattern("\\[rank " + r + "\\] INFO  \\[rank " + r + "/2\\] Connection: connection up:"
                    + " world rank " + peer + " at \\S+ \\(incarnation -?\\d+\\)")
                    .contains("[rank " + r + "] INFO  [rank " + r + "/2, comm 0] QuicTransportProvider: formed: world"
                    + " rank " + r + " of 2 is connected to every peer",
                    "[rank " + r + "] INFO  [rank " + r + "/2, comm 0] QuicTransportProvider: close: world rank " + r
                    + " closes its world communicator");
            String prefix = "[rank " + r + "] INFO ";
            assertThat(cli.err().lines().filter(l -> l.startsWith(prefix) && l.contains("formed: ")).count())
                    .isEqualTo(1);
        }
    }
}
