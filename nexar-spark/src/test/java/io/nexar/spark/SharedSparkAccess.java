package io.nexar.spark;

import org.apache.spark.sql.SparkSession;

/** {@link SharedSpark} for the tests in other packages. */
public final class SharedSparkAccess {
    private SharedSparkAccess() {
    }

    /** @return the module's one test session */
    public static SparkSession session() {
        return SharedSpark.session();
    }
}
