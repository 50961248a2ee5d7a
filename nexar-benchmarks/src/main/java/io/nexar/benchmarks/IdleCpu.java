package io.nexar.benchmarks;

import com.sun.management.OperatingSystemMXBean;
import io.nexar.Communicator;
import io.nexar.Nexar;
import io.nexar.ReduceOp;
import java.lang.management.ManagementFactory;

/**
 * What an idle cluster costs (issue 13 item 1: "an idle cluster uses under 2% CPU"): each rank joins, runs 20,000
 * small allReduces (so every poll window, hand-back and reader thread has run), waits two seconds for them to settle,
 * then sleeps and prints the CPU time its whole process used meanwhile (heartbeats, reader threads, timers), as a
 * share of one core: {@code idle rank=R cpu=P% of one core over S s}.
 *
 * <p>Run: {@code ./nexar launch -n 4 -cp nexar-benchmarks/target/classes io.nexar.benchmarks.IdleCpu [idle-ms]}
 * (default 10,000 ms).
 */
public final class IdleCpu {
    private IdleCpu() {
    }

    /**
     * Runs one rank.
     *
     * @param args optional: how long to stay idle, in milliseconds
     * @throws InterruptedException if interrupted while idle
     */
    public static void main(String[] args) throws InterruptedException {
        long idleMs = args.length > 0 ? Long.parseLong(args[0]) : 10_000;
        try (Communicator world = Nexar.join()) {
            float[] data = new float[2];
            for (int i = 0; i < 20_000; i++) {
                world.allReduce(data, ReduceOp.SUM);
            }
            world.barrier();
            var os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            Thread.sleep(2_000);
            long cpu0 = os.getProcessCpuTime();
            long t0 = System.nanoTime();
            Thread.sleep(idleMs);
            long cpu = os.getProcessCpuTime() - cpu0;
            long wall = System.nanoTime() - t0;
            System.out.printf("idle rank=%d cpu=%.2f%% of one core over %.1f s%n", world.rank(), 100.0 * cpu / wall,
                    wall / 1e9);
            world.barrier(); // nobody closes while another still measures
        }
    }
}
