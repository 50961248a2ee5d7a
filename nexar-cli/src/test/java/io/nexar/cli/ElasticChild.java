package io.nexar.cli;

import io.nexar.Communicator;
import io.nexar.Growth;
import io.nexar.Nexar;
import io.nexar.PeerFailedException;
import io.nexar.ReduceOp;
import java.util.function.Consumer;

/**
 * A worker for the elastic test: a stream of allreduces of 16K floats where rank r contributes {@code (r + 1) * w};
 * every element must equal {@code w * n(n+1)/2} for the communicator's size n (so renumbering is checked too).
 * Every {@code growEvery} steps it calls {@code grow()} with a state transfer that broadcasts the step from rank 0;
 * at step {@code waitAt} the members keep calling {@code grow()} (a bounded number of times) until a newcomer is
 * admitted, after printing {@code waiting for a newcomer}. A newcomer (started with {@code nexar worker --elastic})
 * starts with the same {@code grow()} call, which runs the state transfer. At step {@code leaveAt} the rank 1 of a
 * world of 4 closes its communicator (a polite leave); the others resynchronize (policy automatic) and go on.
 *
 * <p>Prints {@code grew P -> S at step I (joined now: B)}, {@code step I size S rank R}, {@code leaving at step I},
 * {@code done size=S rank=R}; exits 4 on a wrong result, 5 if no newcomer came.
 *
 * <p>Arguments: steps, growEvery, waitAt, leaveAt.
 */
public final class ElasticChild {
    private static final int MAX_WAIT_POLLS = 5_000;

    private ElasticChild() {
    }

    public static void main(String[] args) {
        int steps = Integer.parseInt(args[0]);
        int growEvery = Integer.parseInt(args[1]);
        int waitAt = Integer.parseInt(args[2]);
        int leaveAt = Integer.parseInt(args[3]);
        try (Communicator c = Nexar.join()) {
            c.watch(e -> System.out.println("event " + e));
            long[] step = {0};
            boolean grown = false;
            Consumer<Growth> stateTransfer = g -> c.broadcast(step, 0);
            float[] x = new float[16 * 1024];
            while (step[0] < steps) {
                int i = (int) step[0];
                try {
                    if (i % growEvery == 0) {
                        if (i == waitAt && !grown) {
                            System.out.println("waiting for a newcomer");
                        }
                        int polls = 0;
                        do {
                            Growth g = c.grow(stateTransfer);
                            if (g.grew()) {
                                grown = true;
                                System.out.println("grew " + g.previousSize() + " -> " + g.size() + " at step "
                                        + step[0] + " (joined now: " + g.joinedNow() + ")");
                            }
                        } while (i == waitAt && !grown && ++polls < MAX_WAIT_POLLS);
                        if (i == waitAt && !grown) {
                            System.out.println("no newcomer after " + polls + " grow() calls");
                            System.exit(5);
                        }
                        i = (int) step[0]; // a newcomer learnt the step here
                    }
                    int size = c.worldSize();
                    float w = i % 7 + 1;
                    java.util.Arrays.fill(x, (c.rank() + 1) * w);
                    c.allReduce(x, ReduceOp.SUM);
                    float expected = w * size * (size + 1) / 2f;
                    for (float v : x) {
                        if (v != expected) {
                            System.out.println("WRONG at " + i + ": " + v + " != " + expected);
                            System.exit(4);
                        }
                    }
                    System.out.println("step " + i + " size " + size + " rank " + c.rank());
                    if (i == leaveAt && size == 4 && c.rank() == 1) {
                        System.out.println("leaving at step " + i);
                        return;
                    }
                    step[0] = i + 1;
                } catch (PeerFailedException e) {
                    System.out.println("failed at " + i + ": " + e.getMessage());
                    step[0] = io.nexar.testkit.Resync.step(c, i);
                }
            }
            System.out.println("done size=" + c.worldSize() + " rank=" + c.rank());
        }
    }
}
