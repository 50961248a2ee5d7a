package io.nexar.examples;

import io.nexar.Communicator;
import io.nexar.Nexar;
import io.nexar.PeerFailedException;
import io.nexar.ReduceOp;

/**
 * A data-parallel training loop that survives the death of ranks under recovery policy {@code automatic}
 * (docs/failure-model.md): when a rank dies, the survivors' world communicator is rebuilt without it, and the call
 * that saw the failure throws {@link PeerFailedException} once. The loop then agrees with the other survivors on the
 * step to redo and goes on with fewer ranks.
 *
 * <p>Why an agreement: an allreduce can complete on some survivors and fail on others (a rank that had already
 * received everything it needed finishes). Those ranks are one step ahead, never more, because the next step's
 * allreduce needs every rank. So every rank keeps the model as it was before its last step; after a failure the
 * survivors take the minimum of their steps (an allreduce MIN on the rebuilt communicator), and a rank that is one
 * step ahead goes back to the model it kept. Every survivor then holds the same model at the same step.
 *
 * <pre>
 * NEXAR_RECOVERY_POLICY=automatic ./nexar launch -n 4 io.nexar.examples.ResilientTraining 2000
 * </pre>
 *
 * Prints {@code step S size N} every 100 steps, {@code recovered at step S after MS ms: size N, failure: MESSAGE}
 * after each failure (with the wall-clock time the failure reached this rank, {@code at EPOCH_MS}, for the kill
 * campaign in scripts/kill-trials.sh), and at the end {@code done: S steps, size N, model checksum C}: every survivor
 * prints the same checksum. Exits 0 when done, 3 if a failure cannot be recovered (policy {@code abort}: the failure
 * is printed as {@code failed at step S at EPOCH_MS: MESSAGE}).
 */
public final class ResilientTraining {
    private static final int MODEL = 4096;
    /** Further failures tolerated while agreeing on the step (each is another recovery). */
    private static final int AGREEMENT_ATTEMPTS = 10;

    private ResilientTraining() {
    }

    public static void main(String[] args) {
        int steps = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        boolean recovers = "automatic".equalsIgnoreCase(System.getenv().getOrDefault("NEXAR_RECOVERY_POLICY", ""))
                || "automatic".equalsIgnoreCase(System.getProperty("nexar.recovery.policy", ""));
        try (Communicator world = Nexar.join()) {
            float[] model = new float[MODEL];
            float[] before = new float[MODEL]; // the model before this rank's last step
            float[] gradient = new float[MODEL];
            int step = 0;
            while (step < steps) {
                fillGradient(gradient, step, world.rank(), world.worldSize());
                try {
                    world.allReduce(gradient, ReduceOp.SUM);
                } catch (PeerFailedException e) {
                    long at = System.currentTimeMillis();
                    if (!recovers) {
                        System.out.println("failed at step " + step + " at " + at + ": " + e.getMessage());
                        System.exit(3);
                    }
                    long start = System.nanoTime();
                    int agreed = agreeOnStep(world, step);
                    if (agreed < step) { // this rank finished a step that others did not: undo it
                        System.arraycopy(before, 0, model, 0, MODEL);
                    }
                    step = agreed;
                    System.out.println("recovered at step " + step + " after "
                            + (System.nanoTime() - start) / 1_000_000 + " ms: size " + world.worldSize()
                            + ", failure at " + at + ": " + e.getMessage());
                    continue;
                }
                System.arraycopy(model, 0, before, 0, MODEL);
                float scale = 0.01f / world.worldSize();
                for (int i = 0; i < MODEL; i++) {
                    model[i] -= gradient[i] * scale;
                }
                step++;
                if (step % 100 == 0) {
                    System.out.println("step " + step + " size " + world.worldSize());
                }
            }
            double checksum = 0;
            for (float v : model) {
                checksum += v;
            }
            System.out.println("done: " + steps + " steps, size " + world.worldSize() + ", model checksum "
                    + checksum);
        }
    }

    /** This rank's "gradient" at {@code step}: any deterministic function of the step, rank and size will do. */
    private static void fillGradient(float[] g, int step, int rank, int size) {
        for (int i = 0; i < g.length; i++) {
            g[i] = ((step * 31 + i) % 17 - 8) * 0.001f * (rank % size + 1);
        }
    }

    /** The step every survivor redoes: the smallest step any of them was at. */
    private static int agreeOnStep(Communicator world, int step) {
        for (int attempt = 1; ; attempt++) {
            long[] s = {step};
            try {
                world.allReduce(s, ReduceOp.MIN);
                return (int) s[0];
            } catch (PeerFailedException another) { // one more rank died meanwhile: another recovery
                if (attempt == AGREEMENT_ATTEMPTS) {
                    throw another;
                }
            }
        }
    }
}
