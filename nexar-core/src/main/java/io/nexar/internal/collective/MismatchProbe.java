package io.nexar.internal.collective;

import io.nexar.NexarException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.Deadline;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Fingerprint probes (docs/failure-model.md "Mismatches"): a mismatch that no data message crosses. In a reduce or
 * gather whose root differs on one rank, each rank that believes itself the root only receives, so no chunk ever
 * reaches a rank with another fingerprint, and every rank would wait until {@code collective.timeout}. A driver whose
 * round made no progress for {@link #afterNanos} sends each rank it waits for one empty COLLECTIVE message of its
 * operation with step {@link #STEP}: the receiver compares its fingerprint as it compares every chunk's (a
 * difference fails the operation there, or breaks the communicator if the operation already ended there, and either
 * way every member is told with a MISMATCH abort), and drops it otherwise.
 *
 * <p>Cost: nothing on the data path; one empty message per awaited rank per round that stalls, sent by a virtual
 * thread (never the driver or a reader holding a shard's lock).
 */
final class MismatchProbe {
    /** The step of a probe: no schedule has this many rounds. */
    static final int STEP = Integer.MAX_VALUE;
    /**
     * The default of setting {@code collective.probe.after}: a round stalled this long is probed (or an eighth of the
     * operation's time budget, if less).
     */
    static final long AFTER_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(2);
    private static final MemorySegment EMPTY = MemorySegment.ofArray(new byte[0]);

    private MismatchProbe() {
    }

    /** True if {@code c} is a probe, not a chunk of a round. */
    static boolean is(Message.Collective c) {
        return c.step() == STEP;
    }

    /**
     * How long a round of an operation given {@code budgetNanos} in all may stall before it is probed, with the
     * default setting; a budget that overflowed (a deadline far away) counts as large.
     */
    static long afterNanos(long budgetNanos) {
        return afterNanos(AFTER_NANOS, budgetNanos);
    }

    /**
     * How long a round of an operation given {@code budgetNanos} in all may stall before it is probed, when setting
     * {@code collective.probe.after} is {@code settingNanos}: the setting or an eighth of the budget, whichever is
     * less; 0 (never) if the setting is 0.
     */
    static long afterNanos(long settingNanos, long budgetNanos) {
        if (settingNanos <= 0) {
            return 0;
        }
        return budgetNanos <= 0 ? settingNanos : Math.max(1, Math.min(settingNanos, budgetNanos / 8));
    }

    /**
     * Sends the probe of {@code op} to the members {@code ranks} (communicator ranks) on a virtual thread. Under the
     * shard's lock: everything the thread needs is read here.
     */
    static void send(Transport transport, OpState op, int[] ranks) {
        Fingerprint fp = op.fingerprint;
        Group group = op.group;
        var probe = new Message.Collective(group.id(), op.seq, STEP, fp.operationCode(), fp.typeCode(), fp.opCode(),
                fp.root(), fp.count(), 0, 0, EMPTY);
        var context = op.context();
        Thread.ofVirtual().name("nexar-mismatch-probe").start(() -> {
            Deadline d = Deadline.after(SEND_TIMEOUT);
            for (int r : ranks) {
                try {
                    transport.send(group.world(r), Lane.COLLECTIVE, probe, d, context.withPeer(r));
                } catch (NexarException ignored) {
                    // that rank is gone or stuck: its failure is found another way
                }
            }
        });
    }
}
