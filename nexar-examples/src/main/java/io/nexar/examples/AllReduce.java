package io.nexar.examples;

import io.nexar.Communicator;
import io.nexar.Nexar;
import io.nexar.ReduceOp;
import java.util.Arrays;

/**
 * Every rank contributes {@code [rank, rank, ...]}; after allReduce(SUM) every rank holds the sum of all ranks.
 * Run: {@code ./nexar launch -n 4 io.nexar.examples.AllReduce}.
 */
public final class AllReduce {
    private AllReduce() {
    }

    public static void main(String[] args) {
        try (Communicator world = Nexar.join()) {
            float[] data = new float[8];
            Arrays.fill(data, world.rank());
            world.allReduce(data, ReduceOp.SUM);
            float expected = world.worldSize() * (world.worldSize() - 1) / 2f;
            System.out.println("rank " + world.rank() + ": " + Arrays.toString(data));
            for (float v : data) {
                if (v != expected) {
                    throw new IllegalStateException("expected " + expected + " everywhere, got " + v);
                }
            }
        }
    }
}
