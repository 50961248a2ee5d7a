package io.nexar.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.Communicator;
import io.nexar.Compressor;
import io.nexar.NexarConfig;
import io.nexar.ReduceOp;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 15 item 4: data-parallel SGD on a linear regression, 4 ranks, gradients averaged by a dense allReduce or by a
 * top-k allReduce that sends 1% of the gradient with error feedback. The compressed run must end within 1% of the
 * dense run's loss.
 *
 * <p>The problem: 500 features, 2,000 samples per rank from {@code y = x . w* + 0.5 noise}, x and w* standard normal,
 * so the least loss ({@code mean((x . w - y)^2) / 2}) is about 0.125 and the loss at w = 0 about 250. 3,000 steps of
 * mini-batch SGD (32 samples per rank per step, learning rate 0.01), each rank drawing its batches from its own
 * seeded stream, identical in both runs. Top-k at 1% sends 5 of 500 elements per rank per step. This size and
 * learning rate were chosen with a NumPy model of the same computation, where the compressed loss ends 0.3-0.5% above
 * the dense one; at learning rate 0.05 it ends 13% above (error feedback's stale updates need a smaller step), so the
 * claim holds for this setting, not for every one.
 */
@Timeout(120)
class CompressedTrainingTest {
    private static final long SEED = Long.getLong("nexar.test.seed", 42L);
    private static final int RANKS = 4;
    private static final int FEATURES = 500;
    private static final int SAMPLES = 2_000;
    private static final int STEPS = 3_000;
    private static final int BATCH = 32;
    private static final float LEARNING_RATE = 0.01f;

    @Test
    void topKAtOnePercentConvergesWithinOnePercentOfTheDenseLoss() {
        System.out.println("CompressedTrainingTest seed=" + SEED);
        double[] dense = train(false);
        double[] compressed = train(true);
        System.out.printf("loss at w=0 %.3f; after %d steps: dense %.6f, top-k 1%% %.6f (ratio %.5f)%n", dense[0],
                STEPS, dense[1], compressed[1], compressed[1] / dense[1]);
        assertThat(dense[1]).as("the dense run trained (seed %d)", SEED).isLessThan(dense[0] / 1000);
        assertThat(compressed[1]).as("top-k within 1%% of dense (seed %d)", SEED).isLessThanOrEqualTo(dense[1] * 1.01);
    }

    /** Trains on 4 ranks; returns {loss at w = 0, loss at the end}, the same on every rank. */
    private static double[] train(boolean compressed) {
        try (var cluster = LocalCluster.start(RANKS, NexarConfig.builder().ignoreEnvironment().build())) {
            return cluster.onEachRank(c -> trainRank(c, compressed)).get(0);
        }
    }

    private static double[] trainRank(Communicator c, boolean compressed) {
        var data = new SplittableRandom(SEED);
        float[] wTrue = new float[FEATURES];
        for (int j = 0; j < FEATURES; j++) {
            wTrue[j] = (float) gaussian(data);
        }
        var mine = new SplittableRandom(SEED * 31 + 1 + c.rank());
        float[][] x = new float[SAMPLES][FEATURES];
        float[] y = new float[SAMPLES];
        for (int i = 0; i < SAMPLES; i++) {
            double dot = 0;
            for (int j = 0; j < FEATURES; j++) {
                x[i][j] = (float) gaussian(mine);
                dot += x[i][j] * wTrue[j];
            }
            y[i] = (float) (dot + 0.5 * gaussian(mine));
        }
        float[] w = new float[FEATURES];
        float[] grad = new float[FEATURES];
        float[] residual = new float[FEATURES];
        Compressor topK = Compressor.TopK.ratio(0.01);
        double initial = loss(c, x, y, w);
        var batches = new SplittableRandom(SEED * 17 + c.rank());
        for (int step = 0; step < STEPS; step++) {
            java.util.Arrays.fill(grad, 0);
            for (int b = 0; b < BATCH; b++) {
                int i = batches.nextInt(SAMPLES);
                float err = -y[i];
                for (int j = 0; j < FEATURES; j++) {
                    err += x[i][j] * w[j];
                }
                for (int j = 0; j < FEATURES; j++) {
                    grad[j] += err * x[i][j] / BATCH;
                }
            }
            if (compressed) {
                c.allReduceCompressed(grad, ReduceOp.AVG, topK, residual);
            } else {
                c.allReduce(grad, ReduceOp.AVG);
            }
            for (int j = 0; j < FEATURES; j++) {
                w[j] -= LEARNING_RATE * grad[j];
            }
        }
        return new double[] {initial, loss(c, x, y, w)};
    }

    /** The loss over every rank's samples: mean squared error / 2. */
    private static double loss(Communicator c, float[][] x, float[] y, float[] w) {
        double sum = 0;
        for (int i = 0; i < x.length; i++) {
            double err = -y[i];
            for (int j = 0; j < w.length; j++) {
                err += x[i][j] * w[j];
            }
            sum += err * err;
        }
        double[] mean = {sum / x.length / 2};
        c.allReduce(mean, ReduceOp.AVG);
        return mean[0];
    }

    private static double gaussian(SplittableRandom r) {
        return r.nextGaussian();
    }
}
