package io.nexar.spark.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.spark.SharedSparkAccess;
import io.nexar.spark.examples.LogisticRegression.Model;
import io.nexar.spark.examples.LogisticRegression.Settings;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The example's distributed fit against the same fit in one process. */
@Timeout(300) // the first test to run starts the shared Spark session (30-40 s on a loaded 2-core machine)
class LogisticRegressionTest {

    @Test
    void shouldMatchTheSingleProcessFit() {
        long seed = 42L;
        System.out.println("LogisticRegressionTest: data seed " + seed);
        var settings = new Settings(6, 60, 5, 0.5);
        Dataset<Row> data = LogisticRegression.syntheticData(SharedSparkAccess.session(), 4_000, settings.features(),
                seed).repartition(4);
        Model distributed = LogisticRegression.fitOnSpark(data, settings);
        Model local = LogisticRegression.fitLocally(data.collectAsList(), settings);
        System.out.println("spark: " + distributed + "\nlocal: " + local);
        // the same rows and steps; only the order of the floating-point sums differs
        for (int j = 0; j < local.weights().length; j++) {
            assertThat(distributed.weights()[j]).as("weight %d", j).isCloseTo(local.weights()[j], Offset.offset(1e-9));
        }
        assertThat(distributed.loss()).isCloseTo(local.loss(), Offset.offset(1e-9));
        assertThat(local.loss()).as("it learned something: below log 2, the loss of the zero model")
                .isLessThan(Math.log(2) - 0.1);
    }
}
