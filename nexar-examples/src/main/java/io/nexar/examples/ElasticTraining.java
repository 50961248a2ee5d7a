package io.nexar.examples;

import io.nexar.Communicator;
import io.nexar.Growth;
import io.nexar.Nexar;
import io.nexar.ReduceOp;
import java.util.function.Consumer;

/**
 * A data-parallel training loop that admits workers while it runs. Each step, every rank computes a "gradient" (here
 * a constant per step), the ranks average it with allReduce and apply it to their copy of the model; every
 * {@value #GROW_EVERY} steps they call {@code grow(stateTransfer)}, which admits the workers waiting at the seed and
 * then broadcasts the model and the step from rank 0, so a newcomer continues exactly where the others are.
 *
 * <pre>
 * ./nexar seed -n 2 --elastic                       # prints join: nexar://...
 * ./nexar worker --join nexar://... io.nexar.examples.ElasticTraining 400    (twice)
 * ./nexar worker --join nexar://... --elastic io.nexar.examples.ElasticTraining 400   (any time later)
 * </pre>
 *
 * Every rank prints the model's checksum at the end: all of them, newcomers included, print the same number.
 */
public final class ElasticTraining {
    private static final int GROW_EVERY = 20;

    private ElasticTraining() {
    }

    public static void main(String[] args) {
        int steps = args.length > 0 ? Integer.parseInt(args[0]) : 400;
        try (Communicator world = Nexar.join()) {
            float[] model = new float[1024];
            long[] step = {0};
            Consumer<Growth> stateTransfer = g -> {
                world.broadcast(model, 0);
                world.broadcast(step, 0);
                System.out.println("rank " + world.rank() + ": world grew " + g.previousSize() + " -> " + g.size()
                        + " at step " + step[0] + (g.joinedNow() ? " (joined now)" : ""));
            };
            float[] gradient = new float[model.length];
            while (step[0] < steps) {
                if (step[0] % GROW_EVERY == 0) {
                    world.grow(stateTransfer); // a newcomer's first call: receives the model and the step
                }
                java.util.Arrays.fill(gradient, (step[0] % 10) * 0.001f * (world.rank() + 1));
                world.allReduce(gradient, ReduceOp.SUM);
                float scale = 1f / world.worldSize();
                for (int i = 0; i < model.length; i++) {
                    model[i] -= gradient[i] * scale;
                }
                step[0]++;
            }
            double checksum = 0;
            for (float v : model) {
                checksum += v;
            }
            System.out.println("rank " + world.rank() + " of " + world.worldSize() + ": " + steps
                    + " steps, model checksum " + checksum);
        }
    }
}
