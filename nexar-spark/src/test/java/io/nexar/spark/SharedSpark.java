package io.nexar.spark;

import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * The one Spark session of this module's tests (starting one costs seconds): {@code local[4,2]}, four task slots for
 * barrier stages of four tasks, and a task may fail once (as on a cluster; plain {@code local[4]} allows no failure,
 * which would end the job at the first failed barrier task instead of retrying the stage). Loopback only. Stopped when
 * the test JVM exits.
 */
final class SharedSpark {
    static final int SLOTS = 4;
    private static SparkSession session;

    private SharedSpark() {
    }

    static synchronized SparkSession session() {
        if (session == null) {
            long start = System.nanoTime();
            session = SparkSession.builder()
                    .master("local[" + SLOTS + ",2]")
                    .appName("nexar-spark tests")
                    .config("spark.driver.host", "127.0.0.1")
                    .config("spark.driver.bindAddress", "127.0.0.1")
                    .config("spark.ui.enabled", "false")
                    .config("spark.sql.shuffle.partitions", String.valueOf(SLOTS))
                    .getOrCreate();
            System.out.printf("SharedSpark: Spark %s session started in %d ms%n", session.version(),
                    (System.nanoTime() - start) / 1_000_000);
            SparkSession s = session;
            Runtime.getRuntime().addShutdownHook(new Thread(s::stop, "nexar-spark-tests-stop"));
        }
        return session;
    }

    static JavaSparkContext context() {
        return JavaSparkContext.fromSparkContext(session().sparkContext());
    }
}
