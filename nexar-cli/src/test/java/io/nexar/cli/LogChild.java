package io.nexar.cli;

import io.nexar.internal.util.LogContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A child program for the logging tests: logs through SLF4J from a thread that {@link LogContext#threads} made (rank
 * and world in its MDC), inside a {@link LogContext#scope} (communicator 5 as well), with an empty MDC at debug, and
 * from a logger outside nexar at info; prints the level it was given on standard output.
 */
public final class LogChild {
    private LogChild() {
    }

    public static void main(String[] args) throws InterruptedException {
        Logger log = LoggerFactory.getLogger("io.nexar.cli.LogChild");
        int rank = Integer.parseInt(System.getenv("NEXAR_RANK"));
        int world = Integer.parseInt(System.getenv("NEXAR_WORLD_SIZE"));
        Thread t = LogContext.threads(Thread.ofPlatform().name("nexar-log-child").factory(), rank, world)
                .newThread(() -> log.info("on a nexar thread"));
        t.start();
        t.join();
        try (var scope = LogContext.scope(rank, world, 5)) {
            log.warn("inside a scope");
        }
        log.debug("no MDC after the scope");
        LoggerFactory.getLogger("org.example.Library").info("another library's info line");
        System.out.println("level " + System.getenv(CliLogProvider.LEVEL_VARIABLE) + " rank " + rank);
    }
}
