package io.nexar.cli;

import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The SLF4J backend of the {@code nexar} command and of the JVMs it starts (docs/logging.md): one line per event on
 * standard error, {@code LEVEL [rank R/W, comm C] Logger: message}, the bracket filled from the MDC keys that nexar
 * sets ({@code nexar.rank}, {@code nexar.world}, {@code nexar.comm}). nexar's loggers ({@code io.nexar.*}) log at the
 * chosen level ({@code warn} unless {@value #LEVEL_VARIABLE} or {@code -v}/{@code --log-level} say otherwise); other
 * libraries' (Netty's) at {@code warn}, or less if the chosen level is stricter.
 *
 * <p>It is not registered as a service, so that its jar never competes with an application's own backend: the
 * command selects it with the system property {@value #PROVIDER_PROPERTY} (SLF4J 2.0.9+) in its own JVM and in the
 * JVMs it starts, unless that property is already set.
 */
public final class CliLogProvider implements SLF4JServiceProvider {
    /** The environment variable with the level for nexar's loggers; children of the command inherit it. */
    public static final String LEVEL_VARIABLE = "NEXAR_LOG_LEVEL";
    /** SLF4J's system property naming the provider class explicitly. */
    static final String PROVIDER_PROPERTY = "slf4j.provider";
    /**
     * SLF4J's own messages below this level are not printed: with {@value #PROVIDER_PROPERTY} set, SLF4J would say so
     * on every JVM's standard error at INFO.
     */
    static final String VERBOSITY_PROPERTY = "slf4j.internal.verbosity";
    /** The levels a user may name, in increasing severity. */
    static final String LEVELS = "trace, debug, info, warn, error or off";

    private static final int OFF = Integer.MAX_VALUE;
    private static final int DEFAULT = Level.WARN.toInt();

    private static volatile int nexarThreshold = DEFAULT;
    private static volatile PrintStream sink;

    private final BasicMarkerFactory markers = new BasicMarkerFactory();
    private final BasicMDCAdapter mdc = new BasicMDCAdapter();
    private final Factory factory = new Factory();

    /** Called by SLF4J through {@value #PROVIDER_PROPERTY}. */
    public CliLogProvider() {
    }

    @Override
    public ILoggerFactory getLoggerFactory() {
        return factory;
    }

    @Override
    public IMarkerFactory getMarkerFactory() {
        return markers;
    }

    @Override
    public MDCAdapter getMDCAdapter() {
        return mdc;
    }

    @Override
    public String getRequestedApiVersion() {
        return "2.0.99";
    }

    /** Reads {@value #LEVEL_VARIABLE}; a bad value leaves {@code warn} and says so once on standard error. */
    @Override
    public void initialize() {
        String value = System.getenv(LEVEL_VARIABLE);
        if (value != null && !value.isBlank()) {
            try {
                nexarThreshold = parse(value);
            } catch (IllegalArgumentException e) {
                System.err.println("nexar: " + LEVEL_VARIABLE + "=\"" + value + "\": expected " + LEVELS
                        + "; logging at warn");
            }
        }
    }

    /**
     * Selects this backend for SLF4J in this JVM, unless the property {@value #PROVIDER_PROPERTY} names another one.
     * Call before the first logger is created.
     */
    static void select() {
        if (System.getProperty(PROVIDER_PROPERTY) == null) {
            System.setProperty(PROVIDER_PROPERTY, CliLogProvider.class.getName());
        }
        if (System.getProperty(VERBOSITY_PROPERTY) == null) {
            System.setProperty(VERBOSITY_PROPERTY, "WARN");
        }
    }

    /**
     * Parses a level name.
     *
     * @param name trace, debug, info, warn (or warning), error or off, in any case
     * @return the threshold ({@link Level#toInt()}, or {@code Integer.MAX_VALUE} for off)
     * @throws IllegalArgumentException if {@code name} is none of them
     */
    static int parse(String name) {
        return switch (name.strip().toLowerCase(Locale.ROOT)) {
            case "trace" -> Level.TRACE.toInt();
            case "debug" -> Level.DEBUG.toInt();
            case "info" -> Level.INFO.toInt();
            case "warn", "warning" -> Level.WARN.toInt();
            case "error" -> Level.ERROR.toInt();
            case "off" -> OFF;
            default -> throw new IllegalArgumentException("\"" + name + "\" is not a log level: expected " + LEVELS);
        };
    }

    /**
     * Sets the level of nexar's loggers in this JVM, if this backend is the one SLF4J uses.
     *
     * @param name a level name (see {@link #parse})
     * @return true if this backend is in use (the level took effect)
     */
    static boolean level(String name) {
        int threshold = parse(name);
        if (!(LoggerFactory.getILoggerFactory() instanceof Factory)) {
            return false;
        }
        nexarThreshold = threshold;
        return true;
    }

    /** Sends the lines to {@code out} instead of standard error (null: standard error again); for tests. */
    static void sink(PrintStream out) {
        sink = out;
    }

    /** Also hands every line written to {@link #tap}, or null. */
    private static volatile java.util.function.Consumer<String> tap;

    /**
     * Also hands every line this backend writes (a message of several lines as one string) to {@code listener}, on
     * the logging thread, after writing it; null stops that. {@code nexar bench --in-process} collects the hang
     * reports of its ranks, which share this JVM, with it.
     */
    static void tap(java.util.function.Consumer<String> listener) {
        tap = listener;
    }

    /** {@return the listener of {@link #tap(java.util.function.Consumer)}, or null} */
    static java.util.function.Consumer<String> tap() {
        return tap;
    }

    static boolean enabled(String loggerName, Level level) {
        int threshold = nexarThreshold;
        if (!loggerName.startsWith("io.nexar")) {
            threshold = Math.max(threshold, DEFAULT); // Netty's debug output is not what -v asks for
        }
        return level.toInt() >= threshold;
    }

    static PrintStream out() {
        PrintStream s = sink;
        return s != null ? s : System.err;
    }

    /** One logger per name. */
    private static final class Factory implements ILoggerFactory {
        private final Map<String, Logger> loggers = new ConcurrentHashMap<>();

        @Override
        public Logger getLogger(String name) {
            return loggers.computeIfAbsent(name, CliLogger::new);
        }
    }
}
