package io.nexar.examples;

import io.nexar.Communicator;
import io.nexar.Growth;
import io.nexar.Nexar;
import io.nexar.PeerFailedException;
import io.nexar.ReduceOp;
import java.util.function.Consumer;

/**
 * A data-parallel training loop that admits workers while it runs and, under recovery policy {@code automatic},
 * survives the death of ranks. Each step, every rank computes a "gradient" (here a constant per step), the ranks
 * average it with allReduce and apply it to their copy of the model; every {@value #GROW_EVERY} steps they call
 * {@code grow(stateTransfer)}, which admits the workers waiting at the seed and then broadcasts the model and the step
 * from rank 0, so a newcomer continues exactly where the others are.
 *
 * <p>When a rank dies, the world communicator is rebuilt without it and the call that saw the failure throws
 * {@link PeerFailedException} once: that exception is the announcement of the rebuild, not an error of the rebuilt
 * world (docs/failure-model.md). The survivors then agree on the step to redo (the minimum of their steps: an
 * allreduce can complete on some survivors and fail on others, which are then one step ahead) and a rank that is
 * ahead goes back to the model it kept, as in {@link ResilientTraining}. Without this, the first call after a kill
 * ends the program although the rebuilt world is ready.
 *
 * <pre>
 * ./nexar seed -n 2 --elastic                       # prints join: nexar://...
 * ./nexar worker --join nexar://... io.nexar.examples.ElasticTraining 400    (twice)
 * ./nexar worker --join nexar://... --elastic io.nexar.examples.ElasticTraining 400   (any time later)
 * NEXAR_RECOVERY_POLICY=automatic ./nexar launch -n 4 io.nexar.examples.ElasticTraining 4000   (then kill a rank)
 * </pre>
 *
 * Prints {@code step S size N} every 100 steps, {@code recovered at step S: size N} after each failure, and at the
 * end the model's checksum: every rank, newcomers and survivors included, prints the same number.
 */
public final class ElasticTraining {
    private static final int GROW_EVERY = 20;
    /** Further failures tolerated while agreeing on the step (each is another recovery). */
    private static final int AGREEMENT_ATTEMPTS = 10;

    private ElasticTraining() {
    }

    public static void main(String[] args) {
        int steps = args.length > 0 ? Integer.parseInt(args[0]) : 400;
        boolean recovers = "automatic".equalsIgnoreCase(System.getenv().getOrDefault("NEXAR_RECOVERY_POLICY", ""))
                || "automatic".equalsIgnoreCase(System.getProperty("nexar.recovery.policy", ""));
        try (Communicator world = Nexar.join()) {
            float[] model = new float[1024];
            float[] before = new float[model.length]; // the model before this rank's last step
            long[] step = {0};
            Consumer<Growth> stateTransfer = g -> {
                world.broadcast(model, 0);
                world.broadcast(step, 0);
                System.arraycopy(model, 0, before, 0, model.length);
                System.out.println("rank " + world.rank() + ": world grew " + g.previousSize() + " -> " + g.size()
                        + " at step " + step[0] + (g.joinedNow() ? " (joined now)" : ""));
            };
            float[] gradient = new float[model.length];
            while (step[0] < steps) {
                try {
                    if (step[0] % GROW_EVERY == 0) {
                        world.grow(stateTransfer); // a newcomer's first call: receives the model and the step
                    }
                    java.util.Arrays.fill(gradient, (step[0] % 10) * 0.001f * (world.rank() + 1));
                    world.allReduce(gradient, ReduceOp.SUM);
                } catch (PeerFailedException e) {
                    if (!recovers) {
                        throw e;
                    }
                    long agreed = agreeOnStep(world, step[0]);
                    if (agreed < step[0]) { // this rank finished a step that others did not: undo it
                        System.arraycopy(before, 0, model, 0, model.length);
                    }
                    step[0] = agreed;
                    System.out.println("rank " + world.rank() + ": recovered at step " + step[0] + ": size "
                            + world.worldSize() + " (" + e.getMessage() + ")");
                    continue;
                }
                System.arraycopy(model, 0, before, 0, model.length);
                float scale = 1f / world.worldSize();
                for (int i = 0; i < model.length; i++) {
                    model[i] -= gradient[i] * scale;
                }
                step[0]++;
                if (step[0] % 100 == 0) {
                    System.out.println("step " + step[0] + " size " + world.worldSize());
                }
            }
            double checksum = 0;
            for (float v : model) {
                checksum += v;
            }
            System.out.println("rank " + world.rank() + " of " + world.worldSize() + ": " + steps
                    + " steps, model checksum " + checksum);
        }
    }

    /** The step every survivor redoes: the smallest step any of them was at. */
    private static long agreeOnStep(Communicator world, long step) {
        for (int attempt = 1; ; attempt++) {
            long[] s = {step};
            try {
                world.allReduce(s, ReduceOp.MIN);
                return s[0];
            } catch (PeerFailedException another) { // one more rank died meanwhile: another recovery
                if (attempt == AGREEMENT_ATTEMPTS) {
                    throw another;
                }
            }
        }
    }
}
