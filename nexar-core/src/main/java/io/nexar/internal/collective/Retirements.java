package io.nexar.internal.collective;

import io.nexar.ErrorContext;
import io.nexar.NexarException;
import io.nexar.Operation;
import io.nexar.PeerFailedException;
import io.nexar.internal.protocol.AbortReason;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.Transport;
import java.util.HashMap;

/**
 * Retiring a communicator that an automatic recovery replaced (the rebuilt world) or that can no longer go on (no
 * quorum after the others left), without failing what can still finish. The ranks of a job end one after another: the
 * first to close its communicator leaves politely while the others may still be inside their last collective, whose
 * every message from the leaver has arrived; the recovery that the leave starts must not fail those operations.
 *
 * <p>Retiring communicator C on this rank ({@link #retire}): C accepts no new operation here (a post fails with a
 * {@link PeerFailedException}, which a communicator following the world announces as the rebuild), and what arrives
 * or was kept for operations of C not posted here is dropped; its operations
 * that still need a member that failed or left fail now, telling the others (an abort each); the others run on to
 * their end; and every other live member gets a notice ({@link AbortReason#RETIRED}) naming the first sequence number
 * this rank will never post. A member that receives it ({@link #onNotice}) fails its operations of C from that number
 * on, now or when posted. So an operation spared here ends either way: the members it still waits for have posted it
 * (they finish it and send what it needs, or fail it and say so), or they never will (their notice fails it).
 *
 * <p>Threading: under the communicator's shard lock ({@link CommState#lock}), but for the notices, which a virtual
 * thread sends (never the membership thread that retires, nor a thread holding a shard's lock).
 */
final class Retirements {
    private Retirements() {
    }

    /**
     * {@link CollectiveEngine#retire}: retires {@code group}'s communicator here; {@code failedWorld} are the world ranks
     * that failed or left (sorted or not). Idempotent: a second call sends no second notice.
     */
    static void retire(CollectiveEngine e, Group group, int[] failedWorld, String why) {
        CommState cs = e.comms.getOrCreate(group.id());
        long from;
        cs.lock.lock();
        try {
            if (cs.retired != null) {
                return;
            }
            cs.retired = why;
            from = cs.nextSeq;
            cs.active.failEach(op -> OpPeers.stillNeedsAny(op, failedWorld)
                    ? new PeerFailedException(op.context(), "cannot complete: " + why) : null, false);
            // what is kept for operations not posted here never will be taken: freed now, and later ones dropped
            // (EngineChunks), so they hold no room that live communicators' senders wait for
            e.store.dropCommunicator(group.id());
        } finally {
            cs.lock.unlock();
        }
        e.store.freed();
        Transport t = e.abortTransport;
        if (t != null) {
            sendNotices(t, group, failedWorld, from, why);
        }
    }

    private static void sendNotices(Transport t, Group group, int[] failedWorld, long from, String why) {
        var notice = new Message.CollectiveAbort(group.id(), from, AbortReason.RETIRED, 0, -1,
                ScheduleExecutor.abortDetail("it posts no operation of this communicator from #" + from + " on ("
                        + why + ")"));
        var context = new ErrorContext(Operation.RECOVERY, group.rank(), group.size(), group.id(), -1, -1, -1);
        // the failed and departed ranks are not told: their operations end by their own failure or departure
        Thread.ofVirtual().name("nexar-retire-" + group.id()).start(() ->
                ScheduleExecutor.sendToMembers(t, group, notice, context, w -> contains(failedWorld, w)));
    }

    /**
     * A member's notice that it retired the communicator: fails its operations here from the notice's sequence number
     * on, and those posted later. Under the shard's lock.
     */
    static void onNotice(CommState cs, int worldPeer, Message.CollectiveAbort notice) {
        if (cs.retiredFrom == null) {
            cs.retiredFrom = new HashMap<>();
        }
        cs.retiredFrom.merge(worldPeer, notice, (old, now) -> old.opSeq() <= now.opSeq() ? old : now);
        cs.active.failEach(op -> failure(op, worldPeer, notice), true);
    }

    /** Fails operation {@code op}, being posted, if a member retired its communicator before it. Under its lock. */
    static void failIfRetired(CommState cs, OpState op) {
        for (var entry : cs.retiredFrom.entrySet()) {
            NexarException f = failure(op, entry.getKey(), entry.getValue());
            if (f != null) {
                op.fail(f, true);
                return;
            }
        }
    }

    private static NexarException failure(OpState op, int worldPeer, Message.CollectiveAbort notice) {
        int r = op.group.local(worldPeer);
        return r >= 0 && op.seq >= notice.opSeq() ? OpPeers.abortedBy(op, r, notice) : null;
    }

    private static boolean contains(int[] ranks, int w) {
        for (int x : ranks) {
            if (x == w) {
                return true;
            }
        }
        return false;
    }
}
