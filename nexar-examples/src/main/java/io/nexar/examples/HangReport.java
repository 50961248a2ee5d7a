package io.nexar.examples;

import io.nexar.Communicator;
import io.nexar.Nexar;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;

/**
 * A hang, found: the last rank never calls the barrier (it waits in a {@code recv} that nobody sends to, the bug),
 * so the others wait. After {@code hang.report.after} each waiting rank logs a report, {@code nexar hang report:
 * ...}, naming the rank it waits for and what that rank is doing ("recv from rank 0 tag 7"); at the collective
 * timeout their barrier fails with the report in its message. Rank 0 then releases the last rank and every rank
 * exits 0 if all happened as described.
 *
 * <p>Run: {@code ./nexar launch -n 4 io.nexar.examples.HangReport} (reports after 2 s, timeout after 6 s; the two
 * arguments {@code HANG_REPORT_AFTER COLLECTIVE_TIMEOUT}, for example {@code 1s 4s}, change them; they are set as the
 * system properties {@code nexar.hang.report.after} and {@code nexar.collective.timeout}).
 */
public final class HangReport {
    private static final int RELEASE_TAG = 7;

    private HangReport() {
    }

    public static void main(String[] args) {
        System.setProperty("nexar.hang.report.after", args.length > 0 ? args[0] : "2s");
        System.setProperty("nexar.collective.timeout", args.length > 1 ? args[1] : "6s");
        try (Communicator world = Nexar.join()) {
            int last = world.worldSize() - 1;
            if (world.rank() == last) {
                world.recv(0, RELEASE_TAG, new byte[1]); // the bug: the barrier below is never reached in time
                System.out.println("rank " + last + " released");
                return;
            }
            try {
                world.barrier();
                System.out.println("rank " + world.rank() + ": the barrier returned, which it cannot");
                System.exit(1);
            } catch (OperationTimeoutException | PeerFailedException e) {
                boolean reported = e.getMessage().contains("nexar hang report:");
                System.out.println("rank " + world.rank() + " gave up: " + e.getClass().getSimpleName()
                        + (reported ? " (with the hang report)" : ""));
            }
            if (world.rank() == 0) {
                world.send(last, RELEASE_TAG, new byte[1]);
            }
        }
    }
}
