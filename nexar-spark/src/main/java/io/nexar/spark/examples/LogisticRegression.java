package io.nexar.spark.examples;

import io.nexar.Communicator;
import io.nexar.ReduceOp;
import io.nexar.spark.NexarSpark;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Logistic regression by data-parallel mini-batch SGD in a Spark barrier stage: each task holds one partition of a
 * DataFrame, computes the gradient of its rows of the step's mini-batch, and the tasks sum their gradients with
 * {@link Communicator#allReduce(double[], ReduceOp)}; every task then takes the same step, so every task holds the
 * same model (nexar's allReduce gives every rank bit-identical results). The mini-batch of step {@code t} is the rows
 * whose {@code id} is {@code t} modulo the number of batches, wherever Spark put them, so {@link #fitLocally} (one
 * process, the same rows in id order) computes the same model up to the order of the floating-point sums.
 *
 * <pre>
 *   spark-submit --class io.nexar.spark.examples.LogisticRegression --master 'local[4]' app.jar [ROWS [TASKS]]
 * </pre>
 */
public final class LogisticRegression {

    /**
     * What to fit and how.
     *
     * @param features the number of features (the model has one weight per feature plus a bias)
     * @param steps the number of SGD steps
     * @param batches how many mini-batches the rows fall into (by id modulo this)
     * @param learningRate the step size
     */
    public record Settings(int features, int steps, int batches, double learningRate) implements java.io.Serializable {
    }

    /**
     * A fitted model.
     *
     * @param weights one weight per feature, then the bias
     * @param loss the mean log loss over all rows
     */
    public record Model(double[] weights, double loss) implements java.io.Serializable {
        @Override
        public String toString() {
            return "Model[weights " + Arrays.toString(weights) + ", loss " + loss + "]";
        }
    }

    private LogisticRegression() {
    }

    /**
     * Runs the example: fits on Spark and in one process, and prints both models.
     *
     * @param args optional: the number of rows (default 20000) and of barrier tasks (default 4)
     */
    public static void main(String[] args) {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int tasks = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        var settings = new Settings(8, 200, 10, 0.5);
        SparkSession spark = SparkSession.builder().appName("nexar logistic regression").getOrCreate();
        try {
            Dataset<Row> data = syntheticData(spark, rows, settings.features(), 42L).repartition(tasks);
            Model distributed = fitOnSpark(data, settings);
            Model local = fitLocally(data.collectAsList(), settings);
            System.out.println("spark barrier stage: " + distributed);
            System.out.println("one process:         " + local);
        } finally {
            spark.stop();
        }
    }

    /**
     * Rows {@code (id, label, features)} from a seeded generator: features uniform in [-1, 1], labels drawn from the
     * logistic model of seeded random weights.
     *
     * @param spark the session
     * @param rows how many rows
     * @param features how many features per row
     * @param seed the generator's seed
     * @return the data, in {@code spark}'s default number of partitions
     */
    public static Dataset<Row> syntheticData(SparkSession spark, int rows, int features, long seed) {
        var random = new Random(seed);
        double[] truth = new double[features + 1];
        for (int j = 0; j < truth.length; j++) {
            truth[j] = random.nextGaussian() * 2;
        }
        List<Row> list = new ArrayList<>(rows);
        for (long i = 0; i < rows; i++) {
            double[] x = new double[features];
            for (int j = 0; j < features; j++) {
                x[j] = random.nextDouble() * 2 - 1;
            }
            double label = random.nextDouble() < sigmoid(dot(truth, x)) ? 1 : 0;
            list.add(RowFactory.create(i, label, x));
        }
        StructType schema = new StructType()
                .add("id", DataTypes.LongType, false)
                .add("label", DataTypes.DoubleType, false)
                .add("features", DataTypes.createArrayType(DataTypes.DoubleType, false), false);
        return spark.createDataFrame(list, schema);
    }

    /**
     * Fits in a barrier stage, one task per partition of {@code data}, gradients summed with nexar's allReduce.
     *
     * @param data rows {@code (id, label, features)}; needs as many free task slots as it has partitions
     * @param settings what to fit
     * @return the model, the same on every task (checked)
     * @throws IllegalStateException if two tasks ended with different models
     */
    public static Model fitOnSpark(Dataset<Row> data, Settings settings) {
        List<Model> perTask = NexarSpark.mapPartitions(data.javaRDD(),
                (Communicator world, Iterator<Row> rows) -> List.of(fit(world, rows, settings))).collect();
        for (Model m : perTask) {
            if (!Arrays.equals(m.weights(), perTask.getFirst().weights())) {
                throw new IllegalStateException("tasks ended with different models: " + perTask);
            }
        }
        return perTask.getFirst();
    }

    /**
     * The same fit in one process, for comparison.
     *
     * @param rows rows {@code (id, label, features)}, in any order
     * @param settings what to fit
     * @return the model
     */
    public static Model fitLocally(List<Row> rows, Settings settings) {
        var all = Partition.of(rows.iterator(), settings.features());
        double[] w = new double[settings.features() + 1];
        for (int step = 0; step < settings.steps(); step++) {
            double[] g = all.gradient(w, step % settings.batches(), settings.batches());
            update(w, g, settings.learningRate());
        }
        double[] loss = all.loss(w);
        return new Model(w, loss[0] / loss[1]);
    }

    /** One task's part of {@link #fitOnSpark}. */
    private static Model fit(Communicator world, Iterator<Row> rows, Settings settings) {
        var part = Partition.of(rows, settings.features());
        double[] w = new double[settings.features() + 1];
        for (int step = 0; step < settings.steps(); step++) {
            double[] g = part.gradient(w, step % settings.batches(), settings.batches());
            world.allReduce(g, ReduceOp.SUM); // gradient sums and the batch's row count, over every partition
            update(w, g, settings.learningRate());
        }
        double[] loss = part.loss(w);
        world.allReduce(loss, ReduceOp.SUM);
        return new Model(w, loss[0] / loss[1]);
    }

    /** {@code w -= rate * mean gradient}; {@code g} holds the summed gradient then the row count. */
    private static void update(double[] w, double[] g, double rate) {
        double count = g[w.length];
        if (count == 0) {
            return;
        }
        for (int j = 0; j < w.length; j++) {
            w[j] -= rate * g[j] / count;
        }
    }

    static double sigmoid(double z) {
        return 1 / (1 + Math.exp(-z));
    }

    /** {@code w . x + bias}, the bias being {@code w}'s last entry. */
    static double dot(double[] w, double[] x) {
        double z = w[x.length];
        for (int j = 0; j < x.length; j++) {
            z += w[j] * x[j];
        }
        return z;
    }

    /** One partition's rows, in id order. */
    private record Partition(long[] ids, double[] labels, double[][] features) {
        static Partition of(Iterator<Row> rows, int featureCount) {
            List<Row> list = new ArrayList<>();
            rows.forEachRemaining(list::add);
            list.sort((a, b) -> Long.compare(a.getLong(0), b.getLong(0)));
            long[] ids = new long[list.size()];
            double[] labels = new double[list.size()];
            double[][] x = new double[list.size()][];
            for (int i = 0; i < ids.length; i++) {
                Row r = list.get(i);
                ids[i] = r.getLong(0);
                labels[i] = r.getDouble(1);
                List<Double> f = r.getList(2);
                x[i] = f.stream().mapToDouble(Double::doubleValue).toArray();
                if (x[i].length != featureCount) {
                    throw new IllegalArgumentException("row " + ids[i] + " has " + x[i].length + " features, not "
                            + featureCount);
                }
            }
            return new Partition(ids, labels, x);
        }

        /** The summed log-loss gradient over this partition's rows of batch {@code batch}, then their count. */
        double[] gradient(double[] w, int batch, int batches) {
            int n = w.length;
            double[] g = new double[n + 1];
            for (int i = 0; i < ids.length; i++) {
                if (ids[i] % batches != batch) {
                    continue;
                }
                double err = sigmoid(dot(w, features[i])) - labels[i];
                for (int j = 0; j < n - 1; j++) {
                    g[j] += err * features[i][j];
                }
                g[n - 1] += err;
                g[n] += 1;
            }
            return g;
        }

        /** The summed log loss over all rows, then their count. */
        double[] loss(double[] w) {
            double sum = 0;
            for (int i = 0; i < ids.length; i++) {
                double p = Math.min(Math.max(sigmoid(dot(w, features[i])), 1e-15), 1 - 1e-15);
                sum -= labels[i] * Math.log(p) + (1 - labels[i]) * Math.log(1 - p);
            }
            return new double[] {sum, ids.length};
        }
    }
}
