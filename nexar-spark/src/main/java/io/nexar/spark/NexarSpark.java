package io.nexar.spark;

import io.nexar.ClusterFormationException;
import io.nexar.Communicator;
import io.nexar.ErrorContext;
import io.nexar.Nexar;
import io.nexar.NexarConfig;
import io.nexar.Operation;
import io.nexar.SeedlessLaunch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import org.apache.spark.BarrierTaskContext;
import org.apache.spark.BarrierTaskInfo;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.rdd.RDD;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * A nexar {@link Communicator} for each task of a Spark barrier stage: rank = the task's partition id, world size =
 * the number of tasks in the stage.
 *
 * <pre>{@code
 * JavaRDD<double[]> sums = NexarSpark.mapPartitions(rows, (world, part) -> {
 *     double[] local = ...;                        // from this partition's rows
 *     world.allReduce(local, ReduceOp.SUM);       // over every task of the stage
 *     return List.of(local);
 * });
 * }</pre>
 *
 * <p>How it forms: rank 0 starts a seed in its task on a port the kernel picks and makes a fresh random token;
 * {@code BarrierTaskContext.allGather} hands its address and the token to every task; every task then enrols with
 * the seed as in nexar's launch without a seed process ({@link Nexar#join(SeedlessLaunch, NexarConfig)}: token proof
 * bound to the TLS session, certificate from the job's fresh CA, mutual TLS between tasks). The communicator is
 * closed when the task ends, successfully or not, by a task completion listener. A task that fails closes its
 * communicator, so the other tasks' operations fail with a {@link io.nexar.PeerFailedException} naming its rank and
 * Spark retries the whole barrier stage (docs/spark.md).
 *
 * <p>The token passes through the driver (allGather): see docs/spark.md, "Security". Thread-safe (stateless).
 */
public final class NexarSpark {

    /** How long forming may take by default: the seedless launch's formation timeout. */
    public static final Duration DEFAULT_FORMATION_TIMEOUT = Nexar.DEFAULT_FORMATION_TIMEOUT;

    private NexarSpark() {
    }

    /**
     * Forms the stage's communicator, with the configuration from the executor's environment
     * ({@link NexarConfig#fromEnvironment()}). Call it once per task, from the task's thread, in every task of the
     * barrier stage (it calls {@code BarrierTaskContext.allGather}, which every task must reach).
     *
     * @param context the task's barrier context ({@link BarrierTaskContext#get()})
     * @return the world communicator of this stage attempt; closed when the task ends (closing it earlier is fine)
     * @throws ClusterFormationException if rank 0 could not start its seed or the stage's tasks could not form the
     *         cluster within {@link #DEFAULT_FORMATION_TIMEOUT}
     */
    public static Communicator communicator(BarrierTaskContext context) {
        return communicator(context, NexarConfig.fromEnvironment(), DEFAULT_FORMATION_TIMEOUT);
    }

    /**
     * Forms the stage's communicator with the given configuration: see {@link #communicator(BarrierTaskContext)}.
     *
     * @param context the task's barrier context ({@link BarrierTaskContext#get()})
     * @param config the configuration, the same on every task
     * @param formationTimeout how long enrolment and connecting may take in all
     * @return the world communicator of this stage attempt; closed when the task ends
     * @throws ClusterFormationException if rank 0 could not start its seed or the tasks could not form the cluster in
     *         time
     */
    public static Communicator communicator(BarrierTaskContext context, NexarConfig config,
                                            Duration formationTimeout) {
        Objects.requireNonNull(context, "context");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(formationTimeout, "formationTimeout");
        BarrierTaskInfo[] tasks = context.getTaskInfos();
        int rank = context.partitionId();
        if (rank >= tasks.length) {
            throw new IllegalStateException("partition " + rank + " is not below the stage's " + tasks.length
                    + " tasks: a barrier stage has one task per partition");
        }
        Communicator world = StageFormation.form(context, rank, tasks.length, config, formationTimeout);
        context.addTaskCompletionListener((org.apache.spark.util.TaskCompletionListener) ended -> world.close());
        return world;
    }

    /**
     * Runs {@code body} in a barrier stage over {@code rdd}'s partitions, one task per partition, each with the
     * stage's communicator: the Java form of {@code rdd.barrier().mapPartitions(...)} plus
     * {@link #communicator(BarrierTaskContext)}. What {@code body} returns is collected into a list inside the task,
     * so the communicator is still open while it runs and is closed as soon as it returns.
     *
     * @param rdd the input, one barrier task per partition (all must run at once: at least as many task slots)
     * @param body what each task does with the communicator and its partition's rows
     * @param <T> the input type
     * @param <R> the output type
     * @return the lazily computed output; an action runs the stage
     */
    public static <T, R> JavaRDD<R> mapPartitions(JavaRDD<T> rdd, BarrierFunction<T, R> body) {
        Objects.requireNonNull(rdd, "rdd");
        Objects.requireNonNull(body, "body");
        ClassTag<R> tag = ClassTag$.MODULE$.apply(Object.class);
        RDD<R> out = rdd.rdd().barrier().mapPartitions(new BarrierTask<>(body), false, tag);
        return new JavaRDD<>(out, tag);
    }

    /**
     * What each task of {@link #mapPartitions} runs. Serializable: Spark ships it to the executors.
     *
     * @param <T> the input type
     * @param <R> the output type
     */
    @FunctionalInterface
    public interface BarrierFunction<T, R> extends java.io.Serializable {
        /**
         * Computes one partition's output.
         *
         * @param world the stage's communicator (rank = partition id)
         * @param rows the partition's rows
         * @return the partition's output; it is read before the communicator closes
         * @throws Exception to fail the task (and so the stage attempt)
         */
        Iterable<R> apply(Communicator world, Iterator<T> rows) throws Exception;
    }

    /**
     * The task body of {@link #mapPartitions}, as a Scala function.
     *
     * @param body what the task runs with the communicator
     * @param <T> the input type
     * @param <R> the output type
     */
    private record BarrierTask<T, R>(BarrierFunction<T, R> body)
            implements scala.Function1<scala.collection.Iterator<T>, scala.collection.Iterator<R>>,
            java.io.Serializable {
        @Override
        public scala.collection.Iterator<R> apply(scala.collection.Iterator<T> rows) {
            List<R> out = new ArrayList<>();
            try (Communicator world = communicator(BarrierTaskContext.get())) {
                body.apply(world, CollectionConverters.asJava(rows)).forEach(out::add);
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("barrier task failed: " + e.getMessage(), e);
            }
            return CollectionConverters.asScala(out.iterator());
        }
    }

    static ClusterFormationException formationFailed(int rank, String detail, Throwable cause) {
        return new ClusterFormationException(new ErrorContext(Operation.JOIN, rank, -1, -1, -1, -1, -1),
                "failed in a Spark barrier task: " + detail, cause);
    }
}
