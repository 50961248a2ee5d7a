package io.nexar.cli;

import java.io.PrintStream;
import java.util.Map;

/**
 * What a subcommand may touch: its output streams and the environment. Passed in so every subcommand can be tested
 * in-process.
 *
 * @param out standard output
 * @param err standard error
 * @param env the environment variables
 * @param systemProperties the system properties
 */
public record CliContext(PrintStream out, PrintStream err, Map<String, String> env,
                         Map<String, String> systemProperties) {

    /** The real process context. */
    public static CliContext system() {
        var props = new java.util.HashMap<String, String>();
        System.getProperties().forEach((k, v) -> props.put(String.valueOf(k), String.valueOf(v)));
        return new CliContext(System.out, System.err, System.getenv(), Map.copyOf(props));
    }
}
