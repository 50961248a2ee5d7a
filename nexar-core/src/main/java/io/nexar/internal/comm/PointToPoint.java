package io.nexar.internal.comm;

import io.nexar.Communicator;
import io.nexar.ErrorContext;
import io.nexar.NexarConfig;
import io.nexar.Operation;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.PointToPointHandle;
import io.nexar.Status;
import io.nexar.internal.collective.Group;
import io.nexar.internal.jfr.EventGates;
import io.nexar.internal.jfr.Outcome;
import io.nexar.internal.jfr.PointToPointEvent;
import io.nexar.internal.p2p.Mailbox;
import io.nexar.internal.p2p.P2pRecorder;
import io.nexar.internal.transport.BlockedCalls;
import io.nexar.internal.transport.ContextSource;
import io.nexar.internal.transport.HangReports;
import io.nexar.internal.p2p.PendingReceive;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.CallTimeout;
import io.nexar.internal.util.Checks;
import io.nexar.internal.util.Deadline;
import io.nexar.internal.util.Segments;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;

/**
 * Point-to-point messaging of one {@link TransportCommunicator}: numbers each message per (destination,
 * communicator) in its current {@link View}, sends it in chunks of setting {@code chunk.size} on the P2P lane, and
 * receives through the process's {@link Mailbox}, staging a receive into a thread-confined segment through shared
 * memory. Ranks, tags and errors use the communicator's numbering; messages travel to and are matched by world rank.
 */
final class PointToPoint {
    private final Transport transport;
    private final Mailbox mailbox;
    private final NexarConfig config;
    private final Recovery recovery;

    PointToPoint(Shared shared, Recovery recovery) {
        this.transport = shared.transport();
        this.mailbox = shared.mailbox();
        this.config = shared.config();
        this.recovery = recovery;
    }

    /** See {@link Communicator#send(int, int, MemorySegment)}. */
    void send(int dest, int tag, MemorySegment data) {
        PointToPointEvent event = EventGates.beginPointToPoint();
        long start = System.nanoTime();
        RuntimeException failure = null;
        try {
            OutboundSend s = prepareSend(dest, tag, data);
            BlockedCalls.Call call = blocked(s);
            try {
                transmit(s, call);
            } catch (OperationTimeoutException e) {
                throw call == null ? e : BlockedCalls.withReport(e, call.report());
            } finally {
                if (call != null) {
                    mailbox.hangReports().blocked().end(call);
                }
            }
        } catch (RuntimeException e) {
            failure = e;
            throw e;
        } finally {
            commit(event, P2pRecorder.Kind.SEND, start, dest, tag, data == null ? 0 : data.byteSize(), failure);
        }
    }

    /**
     * A send whose checks passed and whose sequence number is taken: its place in the order is fixed. It is the
     * context source of its chunks' sends (no wrapper per chunk).
     */
    private record OutboundSend(View view, ErrorContext context, Deadline deadline, int dest, int tag, long seq,
                                SendOrder order, MemorySegment data) implements ContextSource {
        @Override
        public ErrorContext errorContext() {
            return context;
        }
    }

    private OutboundSend prepareSend(int dest, int tag, MemorySegment data) {
        Checks.rank("dest", dest, recovery.view().group().size());
        Checks.tag(tag);
        Checks.notNull("data", data);
        var deadline = Deadline.after(CallTimeout.p2p(config));
        View v = recovery.current(Operation.SEND, deadline);
        Group group = v.group();
        Checks.rank("dest", dest, group.size());
        var context = ErrorContext.p2p(Operation.SEND, group.rank(), group.size(), group.id(), tag, dest);
        recovery.checkOpen(context);
        SendOrder order = v.nextSeq().computeIfAbsent(dest, d -> new SendOrder());
        return new OutboundSend(v, context, deadline, dest, tag, order.take(), order, data);
    }

    /**
     * Registers a blocking send with the hang reports' watchdog (docs/failure-model.md "Hang reports"), or null if
     * hang reports are not installed.
     */
    private BlockedCalls.Call blocked(OutboundSend s) {
        HangReports h = mailbox.hangReports();
        if (h == null) {
            return null;
        }
        Group group = s.view().group();
        return h.blocked().begin("send to", s.dest(), group.world(s.dest()), s.tag(), group.id(),
                s.data().byteSize(), s.deadline().deadlineNanos());
    }

    /** Sends {@code s} chunk by chunk; tells {@code call} (if not null) of each chunk handed over. */
    private void transmit(OutboundSend s, BlockedCalls.Call call) {
        Group group = s.view().group();
        long total = s.data().byteSize();
        long chunk = config.chunkBytes();
        long offset = 0;
        try {
            s.order().awaitTurn(s.seq(), s.deadline(), s.context());
            do {
                long len = Math.min(chunk, total - offset);
                transport.send(group.world(s.dest()), Lane.P2P, new Message.Data(group.id(), s.tag(), s.seq(), total,
                        offset, s.data().asSlice(offset, len)), s.deadline(), s);
                offset += len;
                if (call != null) {
                    call.progress(offset);
                }
            } while (offset < total);
        } catch (PeerFailedException e) {
            throw recovery.afterFailure(e, s.view().generation());
        } finally {
            s.order().done(s.seq()); // sent or failed: the next message to this rank may go
        }
    }

    /** See {@link Communicator#recvStatus}; {@link Communicator#recv(int, int, MemorySegment)} is its byte count. */
    Status recvStatus(int src, int tag, MemorySegment buffer) {
        PointToPointEvent event = EventGates.beginPointToPoint();
        long start = System.nanoTime();
        RuntimeException failure = null;
        long n = -1;
        try {
            Status st = recvSegment(src, tag, buffer);
            n = st.byteSize();
            return st;
        } catch (RuntimeException e) {
            failure = e;
            throw e;
        } finally {
            commit(event, P2pRecorder.Kind.RECV, start, src, tag, n, failure);
        }
    }

    /**
     * Records an ended send or receive in the point-to-point flight recorder, and fills and commits its event if a
     * recording wants it.
     */
    private void commit(PointToPointEvent event, P2pRecorder.Kind kind, long startNanos, int peer, int tag, long bytes,
                        RuntimeException failure) {
        record(kind, startNanos, peer, tag, bytes, failure);
        if (event != null && event.shouldCommit()) {
            Group group = recovery.view().group();
            event.operation = (kind == P2pRecorder.Kind.SEND ? Operation.SEND : Operation.RECV).displayName();
            event.communicator = group.id();
            event.rank = group.rank();
            event.peer = peer;
            event.tag = tag;
            event.bytes = bytes;
            event.outcome = Outcome.of(failure);
            event.commit();
        }
    }

    /** Records an ended point-to-point operation in this process's flight recorder (nothing is allocated). */
    private void record(P2pRecorder.Kind kind, long startNanos, int peer, int tag, long bytes,
                        RuntimeException failure) {
        HangReports h = mailbox.hangReports();
        if (h != null) {
            h.p2p().record(kind, recovery.view().group().id(), peer, tag, bytes, startNanos, System.nanoTime(),
                    failure);
        }
    }

    private Status recvSegment(int src, int tag, MemorySegment buffer) {
        if (buffer != null && buffer.isReadOnly()) {
            throw new IllegalArgumentException("buffer is read-only");
        }
        if (buffer != null && !Segments.shared(buffer)) {
            // A thread-confined segment cannot be written by the transport thread that delivers the message: receive
            // into shared memory and copy on this thread.
            try (Arena staging = Arena.ofShared()) {
                MemorySegment shared = staging.allocate(buffer.byteSize(), 8);
                Status st = recvSegment(src, tag, shared);
                Segments.copy(shared, 0, buffer, 0, st.byteSize());
                return st;
            }
        }
        return startReceive(src, tag, buffer).await();
    }

    /** Posts a receive (src and tag may be wildcards) into a buffer that the transport's threads may write. */
    private P2pHandle startReceive(int src, int tag, MemorySegment buffer) {
        checkSource(src);
        checkReceiveTag(tag);
        Checks.notNull("buffer", buffer);
        if (buffer.isReadOnly()) {
            throw new IllegalArgumentException("buffer is read-only");
        }
        var deadline = Deadline.after(CallTimeout.p2p(config));
        View rv = recovery.current(Operation.RECV, deadline);
        Group group = rv.group();
        var context = p2pContext(Operation.RECV, group, src, tag);
        recovery.checkOpen(context);
        try {
            var r = mailbox.post(group.id(), worldSource(group, src), tag == Communicator.ANY_TAG ? PendingReceive.ANY
                    : tag, group.worldRanks(), buffer, context);
            return P2pHandle.receive(mailbox, r, deadline, e -> recovery.afterFailure(e, rv.generation()));
        } catch (PeerFailedException e) {
            throw recovery.afterFailure(e, rv.generation());
        }
    }

    private void checkSource(int src) {
        if (src != Communicator.ANY_SOURCE) {
            Checks.rank("src", src, recovery.view().group().size());
        }
    }

    private static void checkReceiveTag(int tag) {
        if (tag != Communicator.ANY_TAG) {
            Checks.tag(tag);
        }
    }

    /** A point-to-point context in {@code group}'s numbering; a wildcard source or tag is unknown (-1). */
    private static ErrorContext p2pContext(Operation op, Group group, int src, int tag) {
        Checks.rank("src", src == Communicator.ANY_SOURCE ? 0 : src, group.size());
        return ErrorContext.p2p(op, group.rank(), group.size(), group.id(), tag == Communicator.ANY_TAG ? -1 : tag,
                src == Communicator.ANY_SOURCE ? -1 : src);
    }

    private static int worldSource(Group group, int src) {
        return src == Communicator.ANY_SOURCE ? PendingReceive.ANY : group.world(src);
    }

    /** See {@link Communicator#isend}. */
    PointToPointHandle isend(int dest, int tag, MemorySegment data) {
        if (data != null && !Segments.shared(data)) {
            throw new IllegalArgumentException("isend needs a buffer that other threads can read (heap, global, auto "
                    + "or shared arena), not one of a confined arena");
        }
        long start = System.nanoTime();
        OutboundSend s = prepareSend(dest, tag, data); // its place in the send order is taken here
        var sent = new CompletableFuture<Status>();
        Thread.ofVirtual().name("nexar-isend").start(() -> {
            try {
                transmit(s, null);
                record(P2pRecorder.Kind.ISEND, start, dest, tag, data.byteSize(), null);
                sent.complete(new Status(dest, tag, data.byteSize()));
            } catch (Throwable e) {
                record(P2pRecorder.Kind.ISEND, start, dest, tag, data.byteSize(),
                        e instanceof RuntimeException r ? r : null);
                sent.completeExceptionally(e);
            }
        });
        return P2pHandle.send(sent, s.context(), s.deadline());
    }

    /** See {@link Communicator#irecv}. */
    PointToPointHandle irecv(int src, int tag, MemorySegment buffer) {
        if (buffer != null && !Segments.shared(buffer)) {
            throw new IllegalArgumentException("irecv needs a buffer that other threads can write (heap, global, "
                    + "auto or shared arena), not one of a confined arena");
        }
        long start = System.nanoTime();
        HangReports h = mailbox.hangReports();
        P2pHandle handle = startReceive(src, tag, buffer);
        return h == null ? handle : handle.recordedIn(h.p2p(), start);
    }

    /** See {@link Communicator#probe} ({@code wait}) and {@link Communicator#iprobe} (null: nothing yet). */
    Status probe(int src, int tag, boolean wait) {
        checkSource(src);
        checkReceiveTag(tag);
        var deadline = Deadline.after(CallTimeout.p2p(config));
        View v = recovery.current(Operation.PROBE, deadline);
        Group group = v.group();
        var context = p2pContext(Operation.PROBE, group, src, tag);
        recovery.checkOpen(context);
        int worldSrc = worldSource(group, src);
        int t = tag == Communicator.ANY_TAG ? PendingReceive.ANY : tag;
        long start = System.nanoTime();
        RuntimeException failure = null;
        Status found = null;
        HangReports h = wait ? mailbox.hangReports() : null;
        BlockedCalls.Call call = h == null ? null : h.blocked().begin("probe from", src == Communicator.ANY_SOURCE
                ? -1 : src, worldSrc, t, group.id(), -1, deadline.deadlineNanos());
        try {
            found = wait ? mailbox.probe(group.id(), worldSrc, t, group.worldRanks(), deadline, context)
                    : mailbox.iprobe(group.id(), worldSrc, t, group.worldRanks(), context);
            return found;
        } catch (OperationTimeoutException e) {
            failure = call == null ? e : BlockedCalls.withReport(e, call.report());
            throw failure;
        } catch (PeerFailedException e) {
            failure = recovery.afterFailure(e, v.generation());
            throw failure;
        } catch (RuntimeException e) {
            failure = e;
            throw e;
        } finally {
            if (call != null) {
                h.blocked().end(call);
            }
            if (wait) { // a blocking probe; iprobe polls, often in a loop, and would flood the recorder
                record(P2pRecorder.Kind.PROBE, start, found == null ? src : found.source(), found == null ? tag
                        : found.tag(), found == null ? -1 : found.byteSize(), failure);
            }
        }
    }

    /** See {@link Communicator#sendRecv}. */
    Status sendRecv(int dest, int sendTag, MemorySegment sendData, int src, int recvTag, MemorySegment recvBuffer) {
        Checks.notNull("sendData", sendData);
        if (recvBuffer != null && !Segments.shared(recvBuffer)) {
            try (Arena staging = Arena.ofShared()) {
                MemorySegment shared = staging.allocate(recvBuffer.byteSize(), 8);
                Status st = sendRecv(dest, sendTag, sendData, src, recvTag, shared);
                Segments.copy(shared, 0, recvBuffer, 0, st.byteSize());
                return st;
            }
        }
        P2pHandle received = startReceive(src, recvTag, recvBuffer); // posted first: the peer's send cannot block
        try {
            send(dest, sendTag, sendData);
        } catch (RuntimeException e) {
            received.cancel();
            throw e;
        }
        return received.await();
    }

    /** Typed send of an array (little-endian on the wire). */
    void sendArray(int dest, int tag, MemorySegment heap, ValueLayout element) {
        send(dest, tag, WireArrays.wire(heap, element));
    }

    /** Typed receive into an array (little-endian on the wire); see {@link WireArrays#receive}. */
    int recvTyped(int src, int tag, MemorySegment heap, ValueLayout element) {
        return WireArrays.receive(b -> recvStatus(src, tag, b).byteSize(), heap, element, () -> {
            Group g = recovery.view().group();
            return "recv on rank " + g.rank() + " (comm " + g.id() + ", tag " + tag + "): rank " + src;
        });
    }
}
