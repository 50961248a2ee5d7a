package io.nexar.internal.p2p;

import io.nexar.ErrorContext;
import io.nexar.OperationCancelledException;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.Status;
import io.nexar.internal.transport.HangReports;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.util.Deadline;
import io.nexar.internal.util.Futures;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How a caller waits on a {@link Mailbox} or looks into it: waits for a posted receive to end ({@link Mailbox#await},
 * with its hang report and the lines of hang reports, {@link Mailbox#describe}), a receive's expiry at its deadline,
 * and probes for a message without taking it ({@link Mailbox#probe}, {@link Mailbox#iprobe}).
 *
 * <p>Stateless: the mailbox owns every table these methods read and write (each communicator's shard with its
 * {@link Matcher} and blocking probes, guarded by the shard's lock; the peers down, how receives poll the transport
 * and where they report hangs, thread-safe). Each method takes the lock of the shard concerned itself, only around what it reads or writes: never while polling the transport, and it waits
 * for a receive's result without it. The arrival path (chunks matched and copied) is {@link MailboxArrivals}.
 */
final class MailboxWaits {
    private MailboxWaits() {
    }

    /** {@link Mailbox#iprobe}. */
    static Status iprobe(Mailbox mb, int communicator, int worldSrc, int tag, int[] members, ErrorContext context) {
        MailShard s = mb.shards.getOrCreate(communicator);
        s.lock.lock();
        try {
            MailboxFailures.refuseIfClosed(s, context);
            return statusOf(s.matcher.peek(communicator, worldSrc, tag), members);
        } finally {
            s.lock.unlock();
        }
    }

    private static Status statusOf(InboundMessage m, int[] members) {
        return m == null ? null : new Status(PendingReceive.rankIn(members, m.src), m.tag, m.totalBytes);
    }

    /** {@link Mailbox#probe}. */
    static Status probe(Mailbox mb, int communicator, int worldSrc, int tag, int[] members, Deadline deadline,
                        ErrorContext context) {
        String what = worldSrc == PendingReceive.ANY ? "any rank" : "rank " + context.peer();
        int[] waiting = {worldSrc}; // its own array: removed by identity, as another probe may wait for the same rank
        MailShard s = mb.shards.getOrCreate(communicator);
        s.lock.lock();
        try {
            s.probes.add(waiting);
            mb.store.freed(); // a sender refused for lack of room may be taken now
        } finally {
            s.lock.unlock();
        }
        try {
            mb.progress.pollUntil(Lane.P2P, () -> {
                s.lock.lock();
                try {
                    return s.matcher.peek(communicator, worldSrc, tag) != null;
                } finally {
                    s.lock.unlock();
                }
            }, deadline.deadlineNanos(), worldSrc);
            s.lock.lock();
            try {
                while (true) {
                    MailboxFailures.refuseIfClosed(s, context);
                    InboundMessage m = s.matcher.peek(communicator, worldSrc, tag);
                    if (m != null) {
                        return statusOf(m, members);
                    }
                    String down = worldSrc == PendingReceive.ANY ? null : mb.downPeers.get(worldSrc);
                    if (down != null) {
                        throw new PeerFailedException(context, "cannot complete: " + what + " " + down);
                    }
                    long left = deadline.remainingNanos();
                    if (left <= 0) {
                        throw new OperationTimeoutException(context, deadline.timeout(), what);
                    }
                    s.changed.awaitNanos(left);
                }
            } finally {
                s.lock.unlock();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OperationCancelledException(context, "was interrupted while waiting for " + what);
        } finally {
            s.lock.lock();
            try {
                s.probes.remove(waiting);
            } finally {
                s.lock.unlock();
            }
        }
    }

    /** {@link Mailbox#expire}. */
    static void expire(Mailbox mb, PendingReceive r, Deadline deadline) {
        if (r.result.isDone() || !deadline.expired()) {
            return;
        }
        MailShard s = r.shard;
        s.lock.lock();
        try {
            if (!r.result.isDone()) {
                String got = r.bound == null ? ""
                        : " (received " + r.bound.receivedBytes + " of " + r.bound.totalBytes + " bytes)";
                MailboxFailures.abandon(s, r);
                String report = r.hangReport;
                r.result.completeExceptionally(new OperationTimeoutException(r.context, deadline.timeout(),
                        r.source() + got + (report == null ? "" : "; " + report)));
            }
        } finally {
            s.lock.unlock();
        }
    }

    /** {@link Mailbox#await}. */
    static Status await(Mailbox mb, PendingReceive r, Deadline deadline, Deadline waitLimit) {
        boolean limited = waitLimit != null && waitLimit.deadlineNanos() - deadline.deadlineNanos() < 0;
        Deadline until = limited ? waitLimit : deadline;
        try {
            mb.progress.pollUntil(Lane.P2P, r.result::isDone, until.deadlineNanos(), r.worldSrc);
            if (!limited) {
                awaitOrReport(mb, r, deadline);
            }
            return r.result.get(Math.max(0, until.remainingNanos()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            if (limited) {
                throw new OperationTimeoutException(r.context, waitLimit.timeout(), r.source()
                        + " (the wait ended; the receive is still pending)");
            }
            expire(mb, r, deadline);
            return await(mb, r, deadline, null);
        } catch (InterruptedException e) {
            MailShard s = r.shard;
            s.lock.lock();
            try {
                if (!r.result.isDone()) {
                    MailboxFailures.abandon(s, r);
                    r.result.completeExceptionally(new OperationCancelledException(r.context,
                            "was interrupted while waiting for " + r.source()));
                }
            } finally {
                s.lock.unlock();
            }
            Thread.currentThread().interrupt();
            return Futures.join(r.result); // the OperationCancelledException itself, not a CompletionException
        } catch (ExecutionException e) {
            throw Futures.unwrap(e);
        }
    }

    /** {@link Mailbox#describe}. */
    static void describe(Mailbox mb, List<String> lines, Set<Integer> waitingFor) {
        long now = System.nanoTime();
        mb.shards.forEachLocked(s -> s.matcher.forEachPosted(r -> lines.add(r.describe(now, waitingFor))));
    }

    /**
     * Waits for {@code r} until {@code hang.report.after} passed since it was posted, and then, if it is still not
     * done and its deadline is further away, starts a hang report (docs/failure-model.md "Hang reports").
     */
    private static void awaitOrReport(Mailbox mb, PendingReceive r, Deadline deadline)
            throws InterruptedException, ExecutionException {
        HangReports h = mb.hangs;
        long after = h == null ? 0 : h.afterNanos();
        if (after <= 0) {
            return;
        }
        long toReport = r.postedNanos + after - System.nanoTime();
        if (toReport >= deadline.remainingNanos()) {
            return;
        }
        try {
            r.result.get(Math.max(0, toReport), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            var waiting = new TreeSet<Integer>();
            String doing;
            r.shard.lock.lock();
            try {
                doing = r.describe(System.nanoTime(), waiting);
            } finally {
                r.shard.lock.unlock();
            }
            int[] awaited = r.worldSrc == PendingReceive.ANY ? new int[0] : new int[] {r.worldSrc};
            h.stalled(doing, awaited, "", report -> r.hangReport = report);
        }
    }
}
