package io.nexar.examples;

import io.nexar.Communicator;
import io.nexar.Compressor;
import io.nexar.Nexar;
import io.nexar.ReduceOp;
import java.util.Arrays;

/**
 * What a data-parallel trainer does with its gradients, in two ways, checked on every rank:
 * <ol>
 *   <li>a bucketed allReduce: three buckets of different sizes averaged as one operation;</li>
 *   <li>a compressed allReduce: top-k at 10% with error feedback, called until nothing is left in any residual, after
 *       which every element's total over the calls equals the dense sum.</li>
 * </ol>
 * Run: {@code ./nexar launch -n 4 io.nexar.examples.GradientBuckets}.
 */
public final class GradientBuckets {
    private GradientBuckets() {
    }

    public static void main(String[] args) {
        try (Communicator world = Nexar.join()) {
            int n = world.worldSize();
            int r = world.rank();
            // 1. buckets: rank r contributes r + 1 everywhere; the average is (n + 1) / 2
            float[][] buckets = {new float[1000], new float[3], new float[250]};
            for (float[] b : buckets) {
                Arrays.fill(b, r + 1);
            }
            world.allReduce(buckets, ReduceOp.AVG);
            for (float[] b : buckets) {
                for (float v : b) {
                    check(v == (n + 1) / 2f, "bucketed average " + v + ", expected " + (n + 1) / 2f);
                }
            }
            System.out.println("rank " + r + ": 3 buckets averaged in one allReduce");
            // 2. compressed: element i of rank r is (i % 7) + r; ten calls of 10% send everything exactly once
            int count = 100;
            float[] residual = new float[count];
            float[] total = new float[count];
            Compressor topK = Compressor.TopK.ratio(0.1);
            for (int call = 0; call < 10; call++) {
                float[] grad = new float[count];
                if (call == 0) {
                    for (int i = 0; i < count; i++) {
                        grad[i] = i % 7 + r;
                    }
                }
                world.allReduceCompressed(grad, ReduceOp.SUM, topK, residual);
                for (int i = 0; i < count; i++) {
                    total[i] += grad[i];
                }
            }
            for (int i = 0; i < count; i++) {
                float dense = n * (i % 7) + n * (n - 1) / 2f;
                check(total[i] == dense, "element " + i + ": compressed total " + total[i] + ", dense " + dense);
                check(residual[i] == 0, "residual " + i + " is " + residual[i]);
            }
            System.out.println("rank " + r + ": compressed allReduce delivered every element (10 calls of top-k 10%)");
        }
    }

    private static void check(boolean ok, String what) {
        if (!ok) {
            throw new IllegalStateException(what);
        }
    }
}
