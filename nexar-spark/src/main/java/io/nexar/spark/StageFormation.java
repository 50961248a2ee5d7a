package io.nexar.spark;

import io.nexar.Communicator;
import io.nexar.Nexar;
import io.nexar.NexarConfig;
import io.nexar.NexarException;
import io.nexar.SeedlessLaunch;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.spark.BarrierTaskContext;

/**
 * One task's part in forming a barrier stage's communicator. Rank 0 starts the seed (port picked by the kernel) on a
 * thread of its own, waits until it listens and publishes {@code HOST PORT TOKEN} with
 * {@code BarrierTaskContext.allGather}; the other tasks publish nothing and read rank 0's entry. If rank 0's seed
 * cannot start it publishes the error instead, so that every task fails with it rather than waiting for a seed that
 * never comes.
 *
 * <pre>
 *   allGather entry of rank 0:   nexar-spark/1 seed HOST PORT TOKEN     (or: nexar-spark/1 error MESSAGE)
 *   allGather entry of others:   nexar-spark/1 ready
 * </pre>
 */
final class StageFormation {
    static final String VERSION = "nexar-spark/1";
    private static final String SEED = VERSION + " seed ";
    private static final String ERROR = VERSION + " error ";

    private StageFormation() {
    }

    static Communicator form(BarrierTaskContext context, int rank, int worldSize, NexarConfig config,
                             Duration formationTimeout) {
        if (rank != 0) {
            Seed seed = parse(context.allGather(VERSION + " ready")[0], rank);
            var launch = SeedlessLaunch.builder(rank, worldSize).seed(seed.host(), seed.port()).token(seed.token())
                    .formationTimeout(formationTimeout).build();
            return Nexar.join(launch, config);
        }
        String host = TaskAddresses.host(context.getTaskInfos()[0].address());
        var port = new CompletableFuture<Integer>();
        var joined = new CompletableFuture<Communicator>();
        String token = SeedlessLaunch.newToken();
        var launch = SeedlessLaunch.builder(0, worldSize).seed(host, 0).token(token)
                .formationTimeout(formationTimeout).onSeedListening(port::complete).build();
        // Joining blocks until every task enrolled, and they enrol only once they know the port: so rank 0 joins on a
        // thread of its own and publishes the port as soon as its seed listens.
        Thread.ofVirtual().name("nexar-spark-stage" + context.stageId() + "-rank0-join").start(() -> {
            try {
                joined.complete(Nexar.join(launch, config));
            } catch (Throwable e) {
                joined.completeExceptionally(e);
                port.completeExceptionally(e);
            }
        });
        String entry;
        try {
            entry = SEED + host + " " + port.get(formationTimeout.toNanos(), TimeUnit.NANOSECONDS) + " " + token;
        } catch (ExecutionException e) {
            entry = ERROR + oneLine(e.getCause());
        } catch (TimeoutException e) {
            entry = ERROR + "the seed did not listen within " + formationTimeout;
        } catch (InterruptedException e) {
            closeWhenJoined(joined);
            Thread.currentThread().interrupt();
            throw NexarSpark.formationFailed(0, "interrupted while starting the seed (the task was killed)", e);
        }
        try {
            context.allGather(entry);
        } catch (RuntimeException e) {
            closeWhenJoined(joined);
            throw e;
        }
        if (entry.startsWith(ERROR)) {
            throw NexarSpark.formationFailed(0, entry.substring(ERROR.length()), joined.exceptionNow());
        }
        try {
            // the join has its own formation deadline; this bound only guards against a join that never returns
            return joined.get(formationTimeout.toNanos() + TimeUnit.SECONDS.toNanos(10), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof NexarException n) {
                throw n;
            }
            throw NexarSpark.formationFailed(0, oneLine(e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            closeWhenJoined(joined);
            throw NexarSpark.formationFailed(0, "joining did not return within " + formationTimeout, e);
        } catch (InterruptedException e) {
            closeWhenJoined(joined);
            Thread.currentThread().interrupt();
            throw NexarSpark.formationFailed(0, "interrupted while forming (the task was killed)", e);
        }
    }

    /** Rank 0's allGather entry, as a task of another rank reads it. */
    record Seed(String host, int port, String token) {
        @Override
        public String toString() {
            return "Seed[" + host + ":" + port + ", token ***]";
        }
    }

    static Seed parse(String entry, int rank) {
        if (entry.startsWith(ERROR)) {
            throw NexarSpark.formationFailed(rank, "rank 0 could not start the seed: " + entry.substring(ERROR.length()),
                    null);
        }
        String[] parts = entry.startsWith(SEED) ? entry.substring(SEED.length()).split(" ") : new String[0];
        if (parts.length != 3) {
            throw NexarSpark.formationFailed(rank, "rank 0's allGather entry is not '" + SEED + "HOST PORT TOKEN'"
                    + " (a task of another nexar-spark version in the same stage?): "
                    + entry.split(" ", 2)[0] + " ... (rest not shown: it may hold a token)", null);
        }
        try {
            return new Seed(parts[0], Integer.parseInt(parts[1]), parts[2]);
        } catch (NumberFormatException e) {
            throw NexarSpark.formationFailed(rank, "rank 0's seed port is not a number: " + parts[1], e);
        }
    }

    private static void closeWhenJoined(CompletableFuture<Communicator> joined) {
        joined.thenAccept(Communicator::close);
    }

    private static String oneLine(Throwable t) {
        String m = t.getMessage() == null ? t.getClass().getName() : t.getMessage();
        return m.replace('\n', ' ');
    }
}
