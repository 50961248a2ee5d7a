package io.nexar.examples;

import io.nexar.Communicator;
import io.nexar.Nexar;

/**
 * Every rank waits at the barrier until all have arrived, three times in a row.
 * Run: {@code ./nexar launch -n 4 io.nexar.examples.Barrier}.
 */
public final class Barrier {
    private Barrier() {
    }

    public static void main(String[] args) {
        try (Communicator world = Nexar.join()) {
            for (int phase = 0; phase < 3; phase++) {
                world.barrier();
                System.out.println("rank " + world.rank() + " passed barrier " + phase);
            }
        }
    }
}
