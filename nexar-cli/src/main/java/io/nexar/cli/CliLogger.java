package io.nexar.cli;

import io.nexar.internal.util.LogContext;
import java.io.PrintStream;
import org.slf4j.MDC;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/**
 * A logger of {@link CliLogProvider}: writes {@code LEVEL [rank R/W, comm C] Logger: message} (the bracket from the
 * MDC, left out when it is empty; the short class name for nexar's loggers) and the stack trace of a throwable, as
 * one block. A hang report's indented lines follow its first line unchanged, so {@code nexar launch} forwards them
 * together under one {@code [rank R]} prefix.
 */
final class CliLogger extends LegacyAbstractLogger {
    private static final long serialVersionUID = 1L;

    private final String shortName;

    CliLogger(String name) {
        this.name = name;
        this.shortName = name.startsWith("io.nexar.") ? name.substring(name.lastIndexOf('.') + 1) : name;
    }

    @Override
    public boolean isTraceEnabled() {
        return CliLogProvider.enabled(name, Level.TRACE);
    }

    @Override
    public boolean isDebugEnabled() {
        return CliLogProvider.enabled(name, Level.DEBUG);
    }

    @Override
    public boolean isInfoEnabled() {
        return CliLogProvider.enabled(name, Level.INFO);
    }

    @Override
    public boolean isWarnEnabled() {
        return CliLogProvider.enabled(name, Level.WARN);
    }

    @Override
    public boolean isErrorEnabled() {
        return CliLogProvider.enabled(name, Level.ERROR);
    }

    @Override
    protected String getFullyQualifiedCallerName() {
        return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String messagePattern, Object[] arguments,
                                               Throwable throwable) {
        String line = format(level, shortName, MDC.get(LogContext.RANK), MDC.get(LogContext.WORLD),
                MDC.get(LogContext.COMM), MessageFormatter.basicArrayFormat(messagePattern, arguments));
        PrintStream out = CliLogProvider.out();
        synchronized (out) {
            out.println(line);
            if (throwable != null) {
                throwable.printStackTrace(out);
            }
            out.flush();
        }
        var tap = CliLogProvider.tap();
        if (tap != null) {
            tap.accept(line);
        }
    }

    /**
     * One line: {@code WARN  [rank 2/4, comm 0] HangReports: message}; the bracket holds what the MDC has, and is
     * left out when it has none of the three keys.
     */
    static String format(Level level, String logger, String rank, String world, String comm, String message) {
        var sb = new StringBuilder(64 + (message == null ? 4 : message.length()));
        String l = level.toString();
        sb.append(l).append(" ".repeat(Math.max(1, 6 - l.length())));
        if (rank != null || comm != null) {
            sb.append('[');
            if (rank != null) {
                sb.append("rank ").append(rank);
                if (world != null) {
                    sb.append('/').append(world);
                }
            }
            if (comm != null) {
                sb.append(rank != null ? ", " : "").append("comm ").append(comm);
            }
            sb.append("] ");
        }
        return sb.append(logger).append(": ").append(message).toString();
    }
}
