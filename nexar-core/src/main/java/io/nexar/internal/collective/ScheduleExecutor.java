package io.nexar.internal.collective;

import io.nexar.CollectiveMismatchException;
import io.nexar.DataType;
import io.nexar.ErrorContext;
import io.nexar.NexarException;
import io.nexar.Operation;
import io.nexar.OperationCancelledException;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.internal.jfr.CollectiveEvent;
import io.nexar.internal.jfr.EventGates;
import io.nexar.internal.jfr.Outcome;
import io.nexar.internal.protocol.AbortReason;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.Deadline;
import io.nexar.internal.util.Segments;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * Runs one rank's {@link Schedule} against a {@link Transport}: the one executor of every collective.
 *
 * <p>Threading (docs/collectives.md): the calling thread (or, for async calls, one virtual thread
 * per operation) drives the rounds: it runs a round's local steps, opens its receives in the
 * {@link CollectiveEngine}, issues its sends (chunked in whole elements) and sleeps until the engine says the round's
 * receives are complete. Arriving chunks are copied or reduced straight into their target slices by the transport
 * thread that delivers them, so the caller wakes once per round, not once per message. Sends never happen on a
 * transport thread: the in-process transport delivers on the sender's thread, so a send from a delivery would
 * recurse from rank to rank.
 *
 * <p>One {@link Deadline} per operation bounds every wait. The first failure fails the whole operation, names the
 * step and the awaited rank, tells the other ranks (an abort message, so they fail fast instead of timing out) and
 * releases everything the operation held.
 */
public final class ScheduleExecutor {
    private static final Duration ABORT_TIMEOUT = Duration.ofSeconds(1);

    private ScheduleExecutor() {
    }

    /**
     * Runs a posted operation to its end.
     *
     * @param chunkBytes largest payload per message; chunks hold whole elements
     * @throws NexarException the operation's failure
     */
    static void run(CollectiveEngine engine, Transport transport, OpState op, Deadline deadline, long chunkBytes) {
        CollectiveEvent event = EventGates.beginCollective();
        NexarException failure = null;
        try {
            runRounds(engine, transport, op, deadline, chunkBytes);
        } catch (NexarException e) {
            failure = e;
            throw e;
        } finally {
            if (event != null && event.shouldCommit()) {
                commit(event, op.group, op.fingerprint, op.type, op.seq,
                        FlightRecorder.bytesSent(op.schedule, op.type.byteSize()), failure);
            }
        }
    }

    /**
     * Records the JFR event of an operation refused when it was posted (its communicator had already failed or been
     * closed), so that every failed call has its event, whether it failed while running or before it could start.
     */
    static void recordRefused(Group group, Fingerprint fp, DataType type, RuntimeException failure) {
        CollectiveEvent event = EventGates.beginCollective();
        if (event != null && event.shouldCommit()) {
            commit(event, group, fp, type, -1, 0, failure);
        }
    }

    /**
     * Records the JFR event of a collective call refused before it was planned (its communicator closed, aborted
     * after a failure, or rebuilt and not announced yet): sequence, element type, count and root are unknown (-1, null,
     * -1, -1). With {@link #recordRefused(Group, Fingerprint, DataType, RuntimeException)} and {@link #run}, every
     * collective call that fails has its event, wherever it fails.
     *
     * @param group the communicator's current group
     * @param operation the refused call's operation
     * @param failure what the call throws
     */
    public static void recordRefused(Group group, Operation operation, RuntimeException failure) {
        CollectiveEvent event = EventGates.beginCollective();
        if (event != null && event.shouldCommit()) {
            commit(event, group, operation, null, -1, -1, -1, 0, failure);
        }
    }

    private static void commit(CollectiveEvent event, Group group, Fingerprint fp, DataType type, long seq,
                               long bytesSent, Throwable failure) {
        commit(event, group, fp.operation(), type.name(), fp.count(), fp.root(), seq, bytesSent, failure);
    }

    private static void commit(CollectiveEvent event, Group group, Operation operation, String dataType, long count,
                               int root, long seq, long bytesSent, Throwable failure) {
        event.operation = operation.displayName();
        event.communicator = group.id();
        event.sequence = seq;
        event.rank = group.rank();
        event.worldSize = group.size();
        event.dataType = dataType;
        event.count = count;
        event.root = root;
        event.bytesSent = bytesSent;
        event.outcome = Outcome.of(failure);
        event.commit();
    }

    private static void runRounds(CollectiveEngine engine, Transport transport, OpState op, Deadline deadline,
                                  long chunkBytes) {
        try {
            List<List<Step>> rounds = op.schedule.rounds();
            for (int k = 0; k < rounds.size(); k++) {
                throwIfFailed(engine, op);
                List<Step> steps = rounds.get(k);
                runLocal(op, steps);
                engine.open(op, k, steps);
                throwIfFailed(engine, op);
                for (int j = 0; j < steps.size(); j++) { // indexed: no iterator per round
                    if (steps.get(j) instanceof Step.Send send) {
                        send(transport, op, k, send, deadline, chunkBytes);
                    }
                }
                boolean done;
                try {
                    done = engine.awaitRound(op, deadline.deadlineNanos());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    int awaited = engine.awaited(op);
                    throw engine.fail(op, new OperationCancelledException(op.context().withPeer(awaited),
                            "was interrupted at step " + k + "/" + rounds.size()
                            + (awaited < 0 ? "" : " waiting for rank " + awaited)));
                }
                if (!done) {
                    int peer = engine.awaited(op);
                    String report = op.hangReport;
                    throw engine.fail(op, new OperationTimeoutException(op.context().withPeer(peer), deadline.timeout(),
                            k, rounds.size(), "rank " + peer + (report == null ? "" : "; " + report)));
                }
            }
            throwIfFailed(engine, op);
        } catch (NexarException e) {
            NexarException failure = engine.fail(op, e);
            engine.end(op);
            engine.logRecent(op);
            if (!op.informed) {
                abortPeers(transport, op.group, op.seq, op.context(), failure);
            }
            throw failure;
        } finally {
            engine.end(op);
        }
    }

    private static void throwIfFailed(CollectiveEngine engine, OpState op) {
        NexarException f = engine.failure(op);
        if (f != null) {
            throw f;
        }
    }

    /**
     * Copies {@code bytes}, unless source and destination are the same memory (an in-place call: the planners copy
     * the input into the output first, which is then the same bytes, and a 64 MiB in-place allreduce would copy
     * 64 MiB onto itself).
     */
    private static void copy(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset, long bytes) {
        if (bytes == 0 || srcOffset == dstOffset && (src == dst || src.equals(dst))) {
            return;
        }
        Segments.copy(src, srcOffset, dst, dstOffset, bytes);
    }

    private static void runLocal(OpState op, List<Step> steps) {
        int w = op.type.byteSize();
        for (int j = 0; j < steps.size(); j++) {
            switch (steps.get(j)) {
                case Step.Copy c -> copy(seg(op, c.src()), c.src().offset() * w, seg(op, c.dst()),
                        c.dst().offset() * w, c.src().count() * w);
                case Step.Reduce r -> Kernels.reduce(seg(op, r.dst()), r.dst().offset() * w, seg(op, r.src()),
                        r.src().offset() * w, r.src().count(), op.type, op.combiner);
                case Step.Average a -> Kernels.finishAverage(seg(op, a.dst()), a.dst().offset() * w, a.dst().count(),
                        op.type, a.divisor());
                case Step.Identity i -> Kernels.fillIdentity(seg(op, i.dst()), i.dst().offset() * w, i.dst().count(),
                        op.type, op.fingerprint.op());
                default -> {
                }
            }
        }
    }

    private static void send(Transport transport, OpState op, int step, Step.Send send, Deadline deadline,
                             long chunkBytes) {
        int w = op.type.byteSize();
        MemorySegment src = seg(op, send.src());
        long start = send.src().offset() * w;
        long total = send.src().count() * w;
        long chunk = Math.max(w, chunkBytes / w * w);
        Fingerprint fp = op.fingerprint;
        long offset = 0;
        do {
            long len = Math.min(chunk, total - offset);
            var m = op.outgoing.set(op.group.id(), op.seq, step, fp.operationCode(), fp.typeCode(), fp.opCode(),
                    fp.root(), fp.count(), total, offset,
                    start + offset == 0 && len == src.byteSize() ? src : src.asSlice(start + offset, len));
            // the operation is its own context source: the transport builds a context only for a failure
            transport.send(op.group.world(send.peer()), Lane.COLLECTIVE, m, deadline, op);
            offset += len;
        } while (offset < total);
    }

    /** Best effort: tells every other member that this operation failed, so none of them waits for it. */
    static void abortPeers(Transport transport, Group group, long seq, ErrorContext context, NexarException failure) {
        boolean mismatch = failure instanceof CollectiveMismatchException;
        int field = failure instanceof CollectiveMismatchException m ? m.field().code() : 0;
        // a rank that failed (or left) is named to every member, so that none blames this rank instead
        int culprit = failure instanceof PeerFailedException pf && pf.peer().isPresent()
                && pf.peer().getAsInt() < group.size() ? group.world(pf.peer().getAsInt()) : -1;
        var abort = new Message.CollectiveAbort(group.id(), seq, mismatch ? AbortReason.MISMATCH
                : AbortReason.FAILED, field, culprit, abortDetail(failure.getMessage()));
        sendToMembers(transport, group, abort, context, w -> false);
    }

    /** {@code detail} cut to the at most 300 characters a COLLECTIVE_ABORT carries. */
    static String abortDetail(String detail) {
        return detail.length() > 300 ? detail.substring(0, 300) : detail;
    }

    /**
     * Best effort: sends {@code abort} to every member of {@code group} but this rank and the world ranks
     * {@code skipWorld} names, each send waiting at most {@link #ABORT_TIMEOUT} in all for room.
     */
    static void sendToMembers(Transport transport, Group group, Message.CollectiveAbort abort, ErrorContext context,
                              IntPredicate skipWorld) {
        Deadline d = Deadline.after(ABORT_TIMEOUT);
        for (int r = 0; r < group.size(); r++) {
            if (r != group.rank() && !skipWorld.test(group.world(r))) {
                try {
                    transport.send(group.world(r), Lane.COLLECTIVE, abort, d, context.withPeer(r));
                } catch (NexarException ignored) {
                    // that rank is gone or stuck too; it learns of the failure another way
                }
            }
        }
    }

    private static MemorySegment seg(OpState op, Slice s) {
        return op.buffers[s.buf().ordinal()];
    }
}
