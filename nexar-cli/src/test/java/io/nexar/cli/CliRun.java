package io.nexar.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** Runs {@code nexar} commands in this JVM with an environment of their own, keeping what they print. */
final class CliRun {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** Runs {@code args} with an empty environment; returns the exit code. */
    int run(String... args) {
        return run(Map.of(), args);
    }

    /** Runs {@code args} with {@code env} as the environment; returns the exit code. */
    int run(Map<String, String> env, String... args) {
        return run(env, Map.of(), args);
    }

    /** Runs {@code args} with {@code env} as the environment and {@code properties} as system properties. */
    int run(Map<String, String> env, Map<String, String> properties, String... args) {
        return NexarCli.run(new CliContext(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), env, properties), args);
    }

    /** Forgets what was printed on standard output so far. */
    void resetOut() {
        out.reset();
    }

    /** Everything the commands run so far printed on standard output. */
    String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Everything the commands run so far printed on standard error. */
    String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** {@link #err()} as lines. */
    List<String> errLines() {
        return err().lines().toList();
    }
}
