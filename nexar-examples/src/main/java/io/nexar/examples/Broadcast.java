package io.nexar.examples;

import io.nexar.Communicator;
import io.nexar.Nexar;
import java.util.Arrays;

/** Rank 0 broadcasts an array to every rank. Run: {@code ./nexar launch -n 4 io.nexar.examples.Broadcast}. */
public final class Broadcast {
    private Broadcast() {
    }

    public static void main(String[] args) {
        try (Communicator world = Nexar.join()) {
            double[] data = new double[4];
            if (world.rank() == 0) {
                data = new double[] {3.14, 2.71, 1.41, 1.73};
            }
            world.broadcast(data, 0);
            System.out.println("rank " + world.rank() + " got " + Arrays.toString(data));
            if (data[0] != 3.14) {
                throw new IllegalStateException("broadcast did not arrive: " + Arrays.toString(data));
            }
        }
    }
}
