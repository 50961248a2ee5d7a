package io.nexar.examples;

import io.nexar.Communicator;
import io.nexar.Nexar;
import io.nexar.NexarConfig;
import io.nexar.ReduceOp;

/**
 * A worker started by hand on any machine: give it the line that {@code nexar seed --world-size N} printed after
 * {@code join: }.
 *
 * <pre>
 *   ./nexar seed --world-size 2 --bind 0.0.0.0:7000            # prints: join: nexar://HOST:7000?token=...&amp;ca=sha256:...
 *   ./nexar worker --join 'nexar://...' -- io.nexar.examples.SeedWorker    # twice, on any hosts
 * </pre>
 *
 * Or from code, without the worker command: {@code java ... io.nexar.examples.SeedWorker 'nexar://...'}.
 */
public final class SeedWorker {
    private SeedWorker() {
    }

    public static void main(String[] args) {
        try (Communicator world = args.length > 0 ? Nexar.join(args[0], -1, NexarConfig.fromEnvironment())
                : Nexar.join()) {
            long[] count = {1};
            world.allReduce(count, ReduceOp.SUM);
            System.out.println("rank " + world.rank() + " of " + world.worldSize() + ": " + count[0]
                    + " members answered");
        }
    }
}
