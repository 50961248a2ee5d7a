package io.nexar.cli;

import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code -v} and {@code --log-level LEVEL} for the commands that run ranks (demo, bench, launch, worker, seed, run):
 * the level of nexar's loggers in this JVM and, through {@value CliLogProvider#LEVEL_VARIABLE}, in every JVM the
 * command starts. The last of the two on the command line wins. Without either, the level comes from
 * {@value CliLogProvider#LEVEL_VARIABLE} or is {@code warn}.
 */
final class LogOptions {
    /** The level asked for on this command line, or null; reset by {@link NexarCli#run} for every command line. */
    private static volatile String requested;

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = {"-v", "--verbose"}, description = "log nexar's lifecycle and debug lines (--log-level debug)")
    void verbose(boolean on) {
        if (on) {
            apply("debug");
        }
    }

    @Option(names = "--log-level", paramLabel = "LEVEL", description = "level of nexar's log lines on standard error,"
            + " here and in the JVMs this command starts: " + CliLogProvider.LEVELS + " (default: $"
            + CliLogProvider.LEVEL_VARIABLE + " or warn)")
    void logLevel(String level) {
        try {
            CliLogProvider.parse(level);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--log-level: " + e.getMessage());
        }
        apply(level.strip());
    }

    private static void apply(String level) {
        requested = level;
        CliLogProvider.level(level);
    }

    /** Forgets the level of a previous command line (in-process callers run several). */
    static void reset() {
        requested = null;
    }

    /** The level asked for on the command line, or null. */
    static String requested() {
        return requested;
    }

    /** Adds {@value CliLogProvider#LEVEL_VARIABLE} to a child's environment if the command line set a level. */
    static void passOn(Map<String, String> childEnvironment) {
        String level = requested;
        if (level != null) {
            childEnvironment.put(CliLogProvider.LEVEL_VARIABLE, level);
        }
    }
}
