package io.nexar.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ChildProcessesTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private ChildProcesses children() {
        return new ChildProcesses(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Duration.ofSeconds(5));
    }

    @Test
    void shouldPrintPidsAndPrefixOutputOfEveryRank() throws Exception {
        try (var c = children()) {
            c.start(2, r -> ChildProcesses.javaCommand("", TestChild.class.getName(), List.of("ok", "hello")),
                    r -> Map.of("NEXAR_RANK", String.valueOf(r)));
            assertThat(c.await(Duration.ofSeconds(50))).containsExactly(0, 0);
        }
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text).containsPattern("(?m)^rank=0 pid=\\d+$").containsPattern("(?m)^rank=1 pid=\\d+$")
                .contains("[rank 0] hello rank 0", "[rank 1] hello rank 1");
    }

    @Test
    void shouldStopTheOthersWhenOneRankFails() throws Exception {
        int[] codes;
        try (var c = children()) {
            c.start(3, r -> ChildProcesses.javaCommand("", TestChild.class.getName(),
                    r == 1 ? List.of("fail", "3") : List.of("block")), r -> Map.of());
            codes = c.await(Duration.ofSeconds(50));
        }
        assertThat(codes[1]).isEqualTo(3);
        assertThat(codes[0]).isNotZero();
        assertThat(codes[2]).isNotZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("[rank 1] failing on purpose",
                "nexar: rank 1 exited with code 3; the others get 10s to report and exit, then they are stopped");
    }
}
