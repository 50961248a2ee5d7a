package io.nexar.cli;

import io.nexar.Communicator;
import io.nexar.Nexar;
import io.nexar.PeerFailedException;
import io.nexar.ReduceOp;

/**
 * A worker for the fault tests: a stream of allreduces of 64K floats (256 KiB) whose every element must equal the
 * communicator's size times the step's weight. Prints {@code iteration I size S} after each step. On a
 * {@link PeerFailedException} it prints {@code failed at I: MESSAGE}; under policy abort it exits with code 3, under
 * automatic it agrees with the other survivors on the step to redo and goes on. Prints {@code done size=S rank=R} at
 * the end; exits 4 on a wrong result.
 *
 * <p>Arguments: the number of steps.
 */
public final class RecoveryChild {
    private RecoveryChild() {
    }

    public static void main(String[] args) {
        int steps = Integer.parseInt(args[0]);
        boolean recovers = !"abort".equalsIgnoreCase(System.getenv().getOrDefault("NEXAR_RECOVERY_POLICY", "abort"));
        try (Communicator c = Nexar.join()) {
            c.watch(e -> System.out.println("event " + e));
            float[] x = new float[64 * 1024];
            for (int i = 0; i < steps; i++) {
                float weight = i % 7 + 1;
                java.util.Arrays.fill(x, weight);
                int size = c.worldSize();
                try {
                    c.allReduce(x, ReduceOp.SUM);
                } catch (PeerFailedException e) {
                    System.out.println("failed at " + i + ": " + e.getMessage());
                    if (!recovers) {
                        System.exit(3);
                    }
                    i = io.nexar.testkit.Resync.step(c, i) - 1;
                    continue;
                }
                for (float v : x) {
                    if (v != size * weight) {
                        System.out.println("WRONG at " + i + ": " + v + " != " + size * weight);
                        System.exit(4);
                    }
                }
                System.out.println("iteration " + i + " size " + size);
            }
            System.out.println("done size=" + c.worldSize() + " rank=" + c.rank());
        }
    }
}
