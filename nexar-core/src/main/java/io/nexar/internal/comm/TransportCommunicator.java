package io.nexar.internal.comm;

import io.nexar.CollectiveHandle;
import io.nexar.Communicator;
import io.nexar.CommunicatorClosedException;
import io.nexar.DataType;
import io.nexar.ErrorContext;
import io.nexar.Growth;
import io.nexar.MembershipEvent;
import io.nexar.MembershipWatch;
import io.nexar.NexarConfig;
import io.nexar.Operation;
import io.nexar.PeerFailedException;
import io.nexar.PointToPointHandle;
import io.nexar.Status;
import io.nexar.RecoveryPolicy;
import io.nexar.ReduceOp;
import io.nexar.device.DeviceBuffer;
import io.nexar.rpc.Rpc;
import io.nexar.rpc.RpcHandler;
import io.nexar.internal.cluster.Admissions;
import io.nexar.internal.cluster.Membership;
import io.nexar.internal.collective.CollectiveEngine;
import io.nexar.internal.collective.Collectives;
import io.nexar.internal.collective.Group;
import io.nexar.internal.collective.Groups;
import io.nexar.internal.collective.Splits;
import io.nexar.internal.jfr.MembershipChangeEvent;
import io.nexar.internal.jfr.Outcome;
import io.nexar.internal.jfr.PointToPointEvent;
import io.nexar.internal.p2p.Mailbox;
import io.nexar.internal.p2p.P2pRecorder;
import io.nexar.internal.p2p.PendingReceive;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.rpc.RpcEngine;
import io.nexar.internal.transport.HangReports;
import io.nexar.internal.transport.InboundRouter;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.Checks;
import io.nexar.internal.util.CallTimeout;
import io.nexar.internal.util.Deadline;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The {@link Communicator} over any {@link Transport}: numbers each message per (destination, communicator), splits
 * it into chunks of setting {@code chunk.size}, and receives through the process's {@link Mailbox}.
 *
 * <p>Sub-communicators ({@link #split}, {@link #dup}) share the process's transport, mailbox and collective engine;
 * their {@link Group} translates communicator ranks to world ranks. Messages travel to and are matched by world rank
 * under the communicator's id; every argument and error uses the communicator's numbering (errors about a failed
 * peer add its world rank).
 */
public final class TransportCommunicator implements Communicator {
    /** Any thread other than the caller: a segment it can access can be written by transport threads. */
    private static final Thread OTHER_THREAD = Thread.ofPlatform().unstarted(() -> { });

    private final Transport transport;
    private final Mailbox mailbox;
    private final NexarConfig config;
    private final CollectiveEngine engine;
    /** Null when built by hand without one: no RPC. */
    private final RpcEngine rpcEngine;
    /** This communicator's functions, bound in {@link #rpcEngine} under each id the communicator has. */
    private final ConcurrentHashMap<Integer, RpcHandler<MemorySegment, MemorySegment>> rpcHandlers =
            new ConcurrentHashMap<>();
    private final CommunicatorRpc rpc;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Runnable onClose;
    /** Null when built by hand without one: no shrink, no events, no recovery policy. */
    private final Membership membership;
    /** True for the world communicator under recovery policy automatic: it follows the rebuilt world. */
    private final boolean followsWorld;
    /** True for the world communicator of a process with a membership service: it can grow. */
    private final boolean world;
    /** Where grow() finds waiting workers; null when nobody can join (for example an in-process cluster). */
    private volatile Admissions admissions;
    /** On a worker admitted into a running cluster: what its first grow() reports, then null. */
    private volatile Growth admitted;
    /** Every communicator id this object has had (it changes when an automatic recovery rebuilds the world). */
    private final Set<Integer> lineage = ConcurrentHashMap.newKeySet();
    private volatile View view;
    /** The view generation the application was told about (by an exception): later ones are announced once. */
    private volatile int acknowledged;

    /**
     * The membership this object works on now.
     *
     * @param group ranks and id
     * @param generation recoveries that led to this view (automatic policy)
     * @param collectives null when built without a collective engine (point-to-point only)
     * @param nextSeq the next message number per destination
     */
    private record View(Group group, int generation, Collectives collectives,
                        ConcurrentHashMap<Integer, SendOrder> nextSeq) {
    }

    /**
     * @param transport the process's transport
     * @param mailbox the process's receive side (shared by its communicators)
     * @param id the communicator id
     * @param onClose run once by {@link #close()} (for example, closes the transport of the world communicator)
     */
    public TransportCommunicator(Transport transport, Mailbox mailbox, NexarConfig config, int id, Runnable onClose) {
        this(transport, mailbox, null, config, id, onClose);
    }

    /**
     * The world communicator with collectives: the transport's inbound messages must reach {@code mailbox} and
     * {@code engine} (for example through an {@link io.nexar.internal.transport.InboundRouter}).
     *
     * @param engine the process's collective receive side (shared by its communicators), or null for none
     */
    public TransportCommunicator(Transport transport, Mailbox mailbox, CollectiveEngine engine, NexarConfig config,
                                 int id, Runnable onClose) {
        this(transport, mailbox, engine, config, new Group(id, transport.rank(),
                Group.world(transport.rank(), transport.worldSize()).worldRanks()), onClose);
    }

    /** A communicator of {@code group} (the world, or a sub-communicator sharing the process's receive sides). */
    private TransportCommunicator(Transport transport, Mailbox mailbox, CollectiveEngine engine, NexarConfig config,
                                  Group group, Runnable onClose) {
        this(transport, mailbox, engine, null, config, group, 0, null, false, false, onClose);
    }

    private TransportCommunicator(Transport transport, Mailbox mailbox, CollectiveEngine engine, RpcEngine rpcEngine,
                                  NexarConfig config, Group group, int generation, Membership membership,
                                  boolean followsWorld, boolean world, Runnable onClose) {
        this.transport = transport;
        this.mailbox = mailbox;
        this.engine = engine;
        this.rpcEngine = rpcEngine;
        this.rpc = rpcEngine == null ? null : new CommunicatorRpc(this, rpcEngine, config, rpcHandlers);
        this.config = config;
        this.onClose = onClose;
        this.membership = membership;
        this.followsWorld = followsWorld;
        this.world = world;
        adopt(group, generation);
        acknowledged = generation;
        if (membership != null) {
            membership.register(group);
            if (followsWorld) {
                membership.onWorldRebuilt(d -> adopt(d.group(), d.generation()));
            }
        }
    }

    /**
     * The world communicator of a process with a membership service: failures are handled by setting
     * {@code recovery.policy}, {@link #shrink()} and {@link #watch} work. {@code router} must be the transport's
     * inbound handler.
     */
    public static TransportCommunicator world(Transport transport, InboundRouter router, NexarConfig config,
                                              Runnable onClose) {
        installHangReports(transport, router, config);
        router.rpc().start(transport, config);
        var membership = new Membership(transport, router, config);
        Group world = Group.world(transport.rank(), transport.worldSize());
        return new TransportCommunicator(transport, router.mailbox(), router.engine(), router.rpc(), config, world, 0,
                membership, config.policy() == RecoveryPolicy.AUTOMATIC, true, onClose);
    }

    /**
     * The world communicator of a worker admitted into a running cluster by the members' {@link #grow}: the world
     * is {@code ticket}'s members followed by {@code newcomers} (world ranks in order, this process among them). Call
     * {@link #awaitAdmission} before handing it to the application.
     */
    public static TransportCommunicator admitted(Transport transport, InboundRouter router, NexarConfig config,
                                                 Admissions.Ticket ticket, int[] newcomers, Runnable onClose) {
        int[] members = ticket.worldRanks();
        int[] ranks = GrowRound.grownRanks(members, newcomers);
        int self = -1;
        for (int i = 0; i < newcomers.length; i++) {
            self = newcomers[i] == transport.rank() ? members.length + i : self;
        }
        if (self < 0) {
            throw new IllegalArgumentException("world rank " + transport.rank() + " is not among the newcomers "
                    + java.util.Arrays.toString(newcomers));
        }
        var world = new Group(ticket.communicator(), self, ranks);
        if (!router.engine().reserveId(world.id())) {
            throw new IllegalStateException("communicator id " + world.id() + " is already used on this process");
        }
        installHangReports(transport, router, config);
        router.rpc().start(transport, config);
        var membership = new Membership(transport, router, config, world, ticket.generation());
        var c = new TransportCommunicator(transport, router.mailbox(), router.engine(), router.rpc(), config, world,
                ticket.generation(), membership, config.policy() == RecoveryPolicy.AUTOMATIC, true, onClose);
        c.admitted = new Growth(members.length, ranks.length, true);
        return c;
    }

    /** Sets where {@link #grow} finds waiting workers (the seed); without it grow() admits nobody. */
    public void admissions(Admissions source) {
        this.admissions = source;
    }

    /**
     * A newcomer's end of the members' growth: the barrier that closes their {@link #grow} on the grown world, so
     * the newcomer is only handed to the application once every member has admitted it.
     *
     * @throws io.nexar.NexarException if the members did not admit it (they excluded it) or the barrier failed
     */
    public void awaitAdmission() {
        coll(Operation.GROW).barrier(false);
    }

    private void adopt(Group group, int generation) {
        lineage.add(group.id());
        if (rpcEngine != null) {
            View old = view;
            rpcEngine.bind(group, rpcHandlers);
            if (old != null && old.group().id() != group.id()) {
                rpcEngine.unbind(old.group().id());
            }
        }
        view = new View(group, generation, engine == null ? null
                : new Collectives(engine, transport, config, group), new ConcurrentHashMap<>());
    }

    /**
     * The current view, after waiting for an automatic recovery in progress (bounded by {@code deadline}). The first
     * call after a rebuild that the application has not been told about (its own operations all succeeded) throws a
     * {@link PeerFailedException} saying so: every survivor learns of every rebuild exactly once, and can
     * resynchronize its state with the others.
     */
    private View current(Operation operation, Deadline deadline) {
        View v = view;
        if (followsWorld) {
            membership.currentWorld(deadline, context(operation, v.group()));
            v = view;
            if (v.generation() > acknowledged) {
                acknowledged = v.generation();
                throw new PeerFailedException(context(operation, v.group()), "cannot run: the world communicator was"
                        + " rebuilt without a failed rank (recovery " + v.generation() + "; this rank is now rank "
                        + v.group().rank() + " of " + v.group().size() + "); resynchronize the application's state and"
                        + " retry");
            }
        }
        return v;
    }

    /** The context of a whole-communicator operation (no tag, no peer) on {@code group}. */
    private static ErrorContext context(Operation operation, Group group) {
        return new ErrorContext(operation, group.rank(), group.size(), group.id(), -1, -1, -1);
    }

    /** Runs a blocking collective; a failure caused by a lost peer is announced with the rebuild (automatic). */
    private void run(Operation operation, Consumer<Collectives> body) {
        View v = collView(operation);
        try {
            body.accept(v.collectives());
        } catch (PeerFailedException e) {
            throw afterFailure(e, v.generation());
        }
    }

    /**
     * Starts an asynchronous collective. Under policy automatic, a {@link PeerFailedException} that its
     * {@link CollectiveHandle#await()} throws counts as the announcement of the rebuild it caused (as for a blocking
     * call), so the next call does not announce it again.
     */
    private CollectiveHandle async(Operation operation,
                                   java.util.function.Function<Collectives, CollectiveHandle> body) {
        View v = collView(operation);
        CollectiveHandle h = body.apply(v.collectives());
        return followsWorld ? new AnnouncingHandle(h, v.generation()) : h;
    }

    /** A handle whose failure by a lost peer announces the automatic rebuild (see {@link #async}). */
    private final class AnnouncingHandle implements CollectiveHandle {
        private final CollectiveHandle handle;
        private final int generation;

        AnnouncingHandle(CollectiveHandle handle, int generation) {
            this.handle = handle;
            this.generation = generation;
        }

        @Override
        public void await() {
            try {
                handle.await();
            } catch (PeerFailedException e) {
                throw afterFailure(e, generation);
            }
        }

        @Override
        public boolean isDone() {
            return handle.isDone();
        }

        @Override
        public boolean cancel() {
            return handle.cancel();
        }

        @Override
        public java.util.concurrent.CompletableFuture<Void> toCompletableFuture() {
            return handle.toCompletableFuture();
        }
    }

    /**
     * Under policy automatic: waits (bounded) for the recovery the failure {@code e} started and counts {@code e} as
     * the announcement of that rebuild, so the retried operation runs on the rebuilt communicator at once.
     *
     * @param seen the generation of the view the failed operation ran on
     */
    private PeerFailedException afterFailure(PeerFailedException e, int seen) {
        if (followsWorld) {
            int now = membership.awaitRebuild(seen, Deadline.after(config.heartbeatTimeout()
                    .plus(config.recoveryTimeout())));
            if (now > acknowledged) {
                acknowledged = now;
            }
        }
        return e;
    }

    @Override
    public int rank() {
        return view.group().rank();
    }

    @Override
    public String diagnostics() {
        var sb = new StringBuilder("world rank ").append(transport.rank()).append(" of ").append(transport.worldSize())
                .append(" (rank ").append(rank()).append(" of ").append(worldSize()).append(" in communicator ")
                .append(view.group().id()).append("): ");
        HangReports h = mailbox.hangReports();
        sb.append(h == null ? "(no diagnostics: hang reports are not installed)" : h.describeSelf(new TreeSet<>()));
        if (engine != null) {
            var recent = new ArrayList<String>();
            engine.describeRecent(recent);
            recent.forEach(l -> sb.append('\n').append(l));
        }
        String p2p = h == null ? "" : h.p2p().render("", P2pRecorder.SIZE);
        if (!p2p.isEmpty()) {
            sb.append('\n').append(p2p);
        }
        String last = h == null ? null : h.lastReport();
        return last == null ? sb.toString() : sb.append("\nlast hang report: ").append(last).toString();
    }

    /** Hang reports of this process (once: the first world communicator made on it installs them). */
    private static void installHangReports(Transport transport, InboundRouter router, NexarConfig config) {
        if (router.hangReports() == null) {
            router.attach(new HangReports(transport, router, config.hangReportAfter().toNanos()));
        }
    }

    @Override
    public int worldSize() {
        return view.group().size();
    }

    @Override
    public int id() {
        return view.group().id();
    }

    @Override
    public void send(int dest, int tag, MemorySegment data) {
        var event = new PointToPointEvent(); // nothing allocated when no recording enables it (scalar-replaced)
        event.begin();
        long start = System.nanoTime();
        RuntimeException failure = null;
        try {
            sendSegment(dest, tag, data);
        } catch (RuntimeException e) {
            failure = e;
            throw e;
        } finally {
            commit(event, P2pRecorder.Kind.SEND, start, dest, tag, data == null ? 0 : data.byteSize(), failure);
        }
    }

    private void sendSegment(int dest, int tag, MemorySegment data) {
        transmit(prepareSend(dest, tag, data));
    }

    /** A send whose checks passed and whose sequence number is taken: its place in the order is fixed. */
    private record OutboundSend(View view, ErrorContext context, Deadline deadline, int dest, int tag, long seq,
                                SendOrder order, MemorySegment data) {
    }

    private OutboundSend prepareSend(int dest, int tag, MemorySegment data) {
        Checks.rank("dest", dest, worldSize());
        Checks.tag(tag);
        Checks.notNull("data", data);
        var deadline = Deadline.after(CallTimeout.p2p(config));
        View v = current(Operation.SEND, deadline);
        Group group = v.group();
        Checks.rank("dest", dest, group.size());
        var context = ErrorContext.p2p(Operation.SEND, group.rank(), group.size(), group.id(), tag, dest);
        checkOpen(context);
        SendOrder order = v.nextSeq().computeIfAbsent(dest, d -> new SendOrder());
        return new OutboundSend(v, context, deadline, dest, tag, order.take(), order, data);
    }

    private void transmit(OutboundSend s) {
        Group group = s.view().group();
        long total = s.data().byteSize();
        long chunk = config.chunkBytes();
        long offset = 0;
        try {
            s.order().awaitTurn(s.seq(), s.deadline(), s.context());
            do {
                long len = Math.min(chunk, total - offset);
                transport.send(group.world(s.dest()), Lane.P2P, new Message.Data(group.id(), s.tag(), s.seq(), total,
                        offset, s.data().asSlice(offset, len)), s.deadline(), s.context());
                offset += len;
            } while (offset < total);
        } catch (PeerFailedException e) {
            throw afterFailure(e, s.view().generation());
        } finally {
            s.order().done(s.seq()); // sent or failed: the next message to this rank may go
        }
    }

    @Override
    public void send(int dest, int tag, float[] data) {
        sendArray(dest, tag, MemorySegment.ofArray(Checks.notNull("data", data)), ValueLayout.JAVA_FLOAT);
    }

    @Override
    public void send(int dest, int tag, double[] data) {
        sendArray(dest, tag, MemorySegment.ofArray(Checks.notNull("data", data)), ValueLayout.JAVA_DOUBLE);
    }

    @Override
    public void send(int dest, int tag, int[] data) {
        sendArray(dest, tag, MemorySegment.ofArray(Checks.notNull("data", data)), ValueLayout.JAVA_INT);
    }

    @Override
    public void send(int dest, int tag, long[] data) {
        sendArray(dest, tag, MemorySegment.ofArray(Checks.notNull("data", data)), ValueLayout.JAVA_LONG);
    }

    @Override
    public void send(int dest, int tag, byte[] data) {
        send(dest, tag, MemorySegment.ofArray(Checks.notNull("data", data)));
    }

    @Override
    public void send(int dest, int tag, DeviceBuffer data) {
        Checks.notNull("data", data);
        send(dest, tag, data.adapter().stageForSend(data));
    }

    @Override
    public long recv(int src, int tag, MemorySegment buffer) {
        var event = new PointToPointEvent();
        event.begin();
        long start = System.nanoTime();
        RuntimeException failure = null;
        long n = -1;
        try {
            n = recvSegment(src, tag, buffer).byteSize();
            return n;
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
        if (event.shouldCommit()) {
            event.operation = (kind == P2pRecorder.Kind.SEND ? Operation.SEND : Operation.RECV).displayName();
            event.communicator = view.group().id();
            event.rank = view.group().rank();
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
            h.p2p().record(kind, view.group().id(), peer, tag, bytes, startNanos, System.nanoTime(), failure);
        }
    }

    private Status recvSegment(int src, int tag, MemorySegment buffer) {
        if (buffer != null && buffer.isReadOnly()) {
            throw new IllegalArgumentException("buffer is read-only");
        }
        if (buffer != null && !buffer.isAccessibleBy(OTHER_THREAD)) {
            // A thread-confined segment cannot be written by the transport thread that delivers the message: receive
            // into shared memory and copy on this thread.
            try (Arena staging = Arena.ofShared()) {
                MemorySegment shared = staging.allocate(buffer.byteSize(), 8);
                Status st = recvSegment(src, tag, shared);
                MemorySegment.copy(shared, 0, buffer, 0, st.byteSize());
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
        View rv = current(Operation.RECV, deadline);
        Group group = rv.group();
        var context = p2pContext(Operation.RECV, group, src, tag);
        checkOpen(context);
        try {
            var r = mailbox.post(group.id(), worldSource(group, src), tag == ANY_TAG ? PendingReceive.ANY : tag,
                    group.worldRanks(), buffer, context);
            return P2pHandle.receive(mailbox, r, deadline, e -> afterFailure(e, rv.generation()));
        } catch (PeerFailedException e) {
            throw afterFailure(e, rv.generation());
        }
    }

    private void checkSource(int src) {
        if (src != ANY_SOURCE) {
            Checks.rank("src", src, worldSize());
        }
    }

    private static void checkReceiveTag(int tag) {
        if (tag != ANY_TAG) {
            Checks.tag(tag);
        }
    }

    /** A point-to-point context in {@code group}'s numbering; a wildcard source or tag is unknown (-1). */
    private static ErrorContext p2pContext(Operation op, Group group, int src, int tag) {
        Checks.rank("src", src == ANY_SOURCE ? 0 : src, group.size());
        return ErrorContext.p2p(op, group.rank(), group.size(), group.id(), tag == ANY_TAG ? -1 : tag,
                src == ANY_SOURCE ? -1 : src);
    }

    private static int worldSource(Group group, int src) {
        return src == ANY_SOURCE ? PendingReceive.ANY : group.world(src);
    }

    @Override
    public int recv(int src, int tag, float[] buffer) {
        return recvTyped(src, tag, MemorySegment.ofArray(Checks.notNull("buffer", buffer)), ValueLayout.JAVA_FLOAT);
    }

    @Override
    public int recv(int src, int tag, double[] buffer) {
        return recvTyped(src, tag, MemorySegment.ofArray(Checks.notNull("buffer", buffer)), ValueLayout.JAVA_DOUBLE);
    }

    @Override
    public int recv(int src, int tag, int[] buffer) {
        return recvTyped(src, tag, MemorySegment.ofArray(Checks.notNull("buffer", buffer)), ValueLayout.JAVA_INT);
    }

    @Override
    public int recv(int src, int tag, long[] buffer) {
        return recvTyped(src, tag, MemorySegment.ofArray(Checks.notNull("buffer", buffer)), ValueLayout.JAVA_LONG);
    }

    @Override
    public int recv(int src, int tag, byte[] buffer) {
        return (int) recv(src, tag, MemorySegment.ofArray(Checks.notNull("buffer", buffer)));
    }

    @Override
    public long recv(int src, int tag, DeviceBuffer buffer) {
        Checks.notNull("buffer", buffer);
        var adapter = buffer.adapter();
        MemorySegment staging = adapter.receiveStaging(buffer);
        long n = recv(src, tag, staging);
        adapter.receiveToDevice(staging.asSlice(0, n), buffer);
        return n;
    }

    // ------------------------------------------------------------------------- point-to-point: MPI's non-blocking

    @Override
    public PointToPointHandle isend(int dest, int tag, MemorySegment data) {
        if (data != null && !data.isAccessibleBy(OTHER_THREAD)) {
            throw new IllegalArgumentException("isend needs a buffer that other threads can read (heap, global, auto "
                    + "or shared arena), not one of a confined arena");
        }
        long start = System.nanoTime();
        OutboundSend s = prepareSend(dest, tag, data); // its place in the send order is taken here
        var sent = new CompletableFuture<Status>();
        Thread.ofVirtual().name("nexar-isend").start(() -> {
            try {
                transmit(s);
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

    @Override
    public PointToPointHandle irecv(int src, int tag, MemorySegment buffer) {
        if (buffer != null && !buffer.isAccessibleBy(OTHER_THREAD)) {
            throw new IllegalArgumentException("irecv needs a buffer that other threads can write (heap, global, "
                    + "auto or shared arena), not one of a confined arena");
        }
        long start = System.nanoTime();
        HangReports h = mailbox.hangReports();
        P2pHandle handle = startReceive(src, tag, buffer);
        return h == null ? handle : handle.recordedIn(h.p2p(), start);
    }

    @Override
    public Status recvStatus(int src, int tag, MemorySegment buffer) {
        var event = new PointToPointEvent();
        event.begin();
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

    @Override
    public Status probe(int src, int tag) {
        return probe(src, tag, true);
    }

    @Override
    public Optional<Status> iprobe(int src, int tag) {
        return Optional.ofNullable(probe(src, tag, false));
    }

    private Status probe(int src, int tag, boolean wait) {
        checkSource(src);
        checkReceiveTag(tag);
        var deadline = Deadline.after(CallTimeout.p2p(config));
        View v = current(Operation.PROBE, deadline);
        Group group = v.group();
        var context = p2pContext(Operation.PROBE, group, src, tag);
        checkOpen(context);
        int worldSrc = worldSource(group, src);
        int t = tag == ANY_TAG ? PendingReceive.ANY : tag;
        long start = System.nanoTime();
        RuntimeException failure = null;
        Status found = null;
        try {
            found = wait ? mailbox.probe(group.id(), worldSrc, t, group.worldRanks(), deadline, context)
                    : mailbox.iprobe(group.id(), worldSrc, t, group.worldRanks(), context);
            return found;
        } catch (PeerFailedException e) {
            failure = afterFailure(e, v.generation());
            throw failure;
        } catch (RuntimeException e) {
            failure = e;
            throw e;
        } finally {
            if (wait) { // a blocking probe; iprobe polls, often in a loop, and would flood the recorder
                record(P2pRecorder.Kind.PROBE, start, found == null ? src : found.source(), found == null ? tag
                        : found.tag(), found == null ? -1 : found.byteSize(), failure);
            }
        }
    }

    @Override
    public Status sendRecv(int dest, int sendTag, MemorySegment sendData, int src, int recvTag,
                           MemorySegment recvBuffer) {
        Checks.notNull("sendData", sendData);
        if (recvBuffer != null && !recvBuffer.isAccessibleBy(OTHER_THREAD)) {
            try (Arena staging = Arena.ofShared()) {
                MemorySegment shared = staging.allocate(recvBuffer.byteSize(), 8);
                Status st = sendRecv(dest, sendTag, sendData, src, recvTag, shared);
                MemorySegment.copy(shared, 0, recvBuffer, 0, st.byteSize());
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

    // ------------------------------------------------------------------------------------------------ collectives

    /** The collectives, once {@code operation} may run (open communicator with an engine). */
    private Collectives coll(Operation operation) {
        return collView(operation).collectives();
    }

    /** The view whose collectives may run {@code operation} (open communicator with an engine). */
    private View collView(Operation operation) {
        if (engine == null) {
            throw new UnsupportedOperationException("this communicator was built without a collective engine");
        }
        View v = current(operation, Deadline.after(CallTimeout.collective(config)));
        checkOpen(context(operation, v.group()));
        return v;
    }

    @Override
    public Communicator split(int color, int key) {
        Group g = Splits.split(coll(Operation.SPLIT), engine, color, key);
        if (g == null) {
            return null;
        }
        return child(g);
    }

    /** A sub-communicator of {@code g} sharing this process's transport, receive sides and membership service. */
    private TransportCommunicator child(Group g) {
        String reason = "the communicator was closed";
        return new TransportCommunicator(transport, mailbox, engine, rpcEngine, config, g, 0, membership, false, false,
                () -> {
                    engine.closeCommunicator(g.id(), reason);
                    mailbox.closeCommunicator(g.id(), reason);
                    if (rpcEngine != null) {
                        rpcEngine.closeCommunicator(g.id(), reason);
                    }
                });
    }

    @Override
    public Communicator shrink() {
        var event = new MembershipChangeEvent();
        event.begin();
        Communicator shrunk = shrinkNow();
        if (event.shouldCommit()) {
            event.kind = "shrink";
            event.communicator = view.group().id();
            event.detail = "to " + shrunk.worldSize() + " ranks as communicator " + shrunk.id();
            event.commit();
        }
        return shrunk;
    }

    private Communicator shrinkNow() {
        if (membership == null) {
            throw new UnsupportedOperationException("this communicator was built without a membership service");
        }
        Group group = view.group();
        var context = context(Operation.SHRINK, group);
        if (closed.get()) {
            throw new CommunicatorClosedException(context, "failed: the communicator was closed");
        }
        if (followsWorld) {
            current(Operation.SHRINK, Deadline.after(config.recoveryTimeout()));
            checkOpen(context);
            return this;
        }
        return child(membership.shrink(group, context).group());
    }

    @Override
    public Growth grow(Consumer<Growth> stateTransfer) {
        Checks.notNull("stateTransfer", stateTransfer);
        if (!world) {
            throw new UnsupportedOperationException(membership == null ? "this communicator was built without a"
                    + " membership service" : "grow() works on the world communicator only");
        }
        Growth joined = admitted;
        if (joined != null) { // the members' grow() that admitted this process is running its state transfer
            admitted = null;
            collView(Operation.GROW);
            stateTransfer.accept(joined);
            return joined;
        }
        View v = collView(Operation.GROW);
        Group old = v.group();
        Group next;
        try {
            next = GrowRound.run(transport, engine, v.collectives(), v.generation(), admissions, config,
                    context(Operation.GROW, old));
        } catch (PeerFailedException e) {
            throw afterFailure(e, v.generation());
        }
        if (next == null) {
            return new Growth(old.size(), old.size(), false);
        }
        int generation = v.generation() + 1;
        var event = new MembershipChangeEvent();
        if (event.shouldCommit()) {
            event.kind = "grow";
            event.communicator = old.id();
            event.detail = "from " + old.size() + " to " + next.size() + " ranks (generation " + generation + ")";
            event.commit();
        }
        membership.grown(old, next, generation);
        acknowledged = generation;
        adopt(next, generation);
        var growth = new Growth(old.size(), next.size(), false);
        run(Operation.GROW, c -> c.barrier(false));
        stateTransfer.accept(growth);
        return growth;
    }

    @Override
    public MembershipWatch watch(Consumer<MembershipEvent> listener) {
        Checks.notNull("listener", listener);
        if (membership == null) {
            throw new UnsupportedOperationException("this communicator was built without a membership service");
        }
        return membership.watch(lineage::contains, listener);
    }

    @Override
    public Communicator dup() {
        return split(0, rank());
    }

    // ---- groups and per-call deadlines ------------------------------------------------------------------------------

    /** How many group() calls this process made per (communicator id, listed world ranks): see {@link Groups}. */
    private final ConcurrentHashMap<String, AtomicInteger> groupCalls = new ConcurrentHashMap<>();

    @Override
    public Communicator group(int... ranks) {
        java.util.Objects.requireNonNull(ranks, "ranks");
        int[] listed = ranks.clone();
        View v = collView(Operation.GROUP);
        Group parent = v.group();
        Groups.check(parent, listed);
        String key = parent.id() + ":" + java.util.Arrays.toString(java.util.Arrays.stream(listed).map(parent::world)
                .toArray());
        int call = groupCalls.computeIfAbsent(key, k -> new AtomicInteger()).getAndIncrement();
        Group g;
        try {
            g = Groups.create(parent, listed, call, engine, transport, config);
        } catch (PeerFailedException e) {
            throw afterFailure(e, v.generation());
        }
        return child(g);
    }

    @Override
    public Communicator withTimeout(java.time.Duration timeout) {
        return TimedCommunicator.of(this, timeout);
    }

    // ---- end of groups and per-call deadlines -----------------------------------------------------------------------

    @Override
    public void barrier() {
        run(Operation.BARRIER, c -> c.barrier(false));
    }

    @Override
    public CollectiveHandle barrierAsync() {
        return async(Operation.BARRIER, c -> c.barrier(true));
    }

    @Override
    public void allReduce(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op) {
        run(Operation.ALL_REDUCE, c -> c.allReduce(in, out, type, count, op, false));
    }

    @Override
    public CollectiveHandle allReduceAsync(MemorySegment in, MemorySegment out, DataType type, long count,
                                           ReduceOp op) {
        return async(Operation.ALL_REDUCE, c -> c.allReduce(in, out, type, count, op, true));
    }

    @Override
    public void allReduce(java.util.List<MemorySegment> buckets, DataType type, ReduceOp op) {
        run(Operation.ALL_REDUCE, c -> c.allReduce(buckets, type, op, false));
    }

    @Override
    public CollectiveHandle allReduceAsync(java.util.List<MemorySegment> buckets, DataType type, ReduceOp op) {
        return async(Operation.ALL_REDUCE, c -> c.allReduce(buckets, type, op, true));
    }

    @Override
    public void allReduceCompressed(MemorySegment data, DataType type, long count, ReduceOp op,
                                    io.nexar.Compressor compressor, MemorySegment residual) {
        run(Operation.ALL_REDUCE, c -> c.allReduceCompressed(data, type, count, op, compressor, residual, false));
    }

    @Override
    public CollectiveHandle allReduceCompressedAsync(MemorySegment data, DataType type, long count, ReduceOp op,
                                                     io.nexar.Compressor compressor, MemorySegment residual) {
        return async(Operation.ALL_REDUCE,
                c -> c.allReduceCompressed(data, type, count, op, compressor, residual, true));
    }

    @Override
    public void broadcast(MemorySegment data, DataType type, long count, int root) {
        run(Operation.BROADCAST, c -> c.broadcast(data, type, count, root, false));
    }

    @Override
    public CollectiveHandle broadcastAsync(MemorySegment data, DataType type, long count, int root) {
        return async(Operation.BROADCAST, c -> c.broadcast(data, type, count, root, true));
    }

    @Override
    public void reduce(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op, int root) {
        run(Operation.REDUCE, c -> c.reduce(in, out, type, count, op, root, false));
    }

    @Override
    public CollectiveHandle reduceAsync(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op,
                                        int root) {
        return async(Operation.REDUCE, c -> c.reduce(in, out, type, count, op, root, true));
    }

    @Override
    public void allGather(MemorySegment in, MemorySegment out, DataType type, long count) {
        run(Operation.ALL_GATHER, c -> c.allGather(in, out, type, count, false));
    }

    @Override
    public CollectiveHandle allGatherAsync(MemorySegment in, MemorySegment out, DataType type, long count) {
        return async(Operation.ALL_GATHER, c -> c.allGather(in, out, type, count, true));
    }

    @Override
    public void allGatherV(MemorySegment in, MemorySegment out, DataType type, long[] counts) {
        run(Operation.ALL_GATHER, c -> c.allGatherV(in, out, type, counts, false));
    }

    @Override
    public void reduceScatter(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op) {
        run(Operation.REDUCE_SCATTER, c -> c.reduceScatter(in, out, type, count, op, false));
    }

    @Override
    public CollectiveHandle reduceScatterAsync(MemorySegment in, MemorySegment out, DataType type, long count,
                                               ReduceOp op) {
        return async(Operation.REDUCE_SCATTER, c -> c.reduceScatter(in, out, type, count, op, true));
    }

    @Override
    public void allToAll(MemorySegment in, MemorySegment out, DataType type, long count) {
        run(Operation.ALL_TO_ALL, c -> c.allToAll(in, out, type, count, false));
    }

    @Override
    public void allToAllV(MemorySegment in, long[] sendCounts, MemorySegment out, long[] recvCounts, DataType type) {
        run(Operation.ALL_TO_ALL, c -> c.allToAllV(in, sendCounts, out, recvCounts, type, false));
    }

    @Override
    public void gather(MemorySegment in, MemorySegment out, DataType type, long count, int root) {
        run(Operation.GATHER, c -> c.gather(in, out, type, count, null, root, false));
    }

    @Override
    public void gatherV(MemorySegment in, MemorySegment out, DataType type, long[] counts, int root) {
        run(Operation.GATHER, c -> c.gather(in, out, type, -1, counts, root, false));
    }

    @Override
    public void scatter(MemorySegment in, MemorySegment out, DataType type, long count, int root) {
        run(Operation.SCATTER, c -> c.scatter(in, out, type, count, null, root, false));
    }

    @Override
    public void scatterV(MemorySegment in, MemorySegment out, DataType type, long[] counts, int root) {
        run(Operation.SCATTER, c -> c.scatter(in, out, type, -1, counts, root, false));
    }

    @Override
    public void scan(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op) {
        run(Operation.SCAN, c -> c.scan(in, out, type, count, op, false, false));
    }

    @Override
    public void exclusiveScan(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op) {
        run(Operation.EXCLUSIVE_SCAN, c -> c.scan(in, out, type, count, op, true, false));
    }

    @Override
    public CollectiveHandle allGatherVAsync(MemorySegment in, MemorySegment out, DataType type, long[] counts) {
        return async(Operation.ALL_GATHER, c -> c.allGatherV(in, out, type, counts, true));
    }

    @Override
    public CollectiveHandle allToAllAsync(MemorySegment in, MemorySegment out, DataType type, long count) {
        return async(Operation.ALL_TO_ALL, c -> c.allToAll(in, out, type, count, true));
    }

    @Override
    public CollectiveHandle allToAllVAsync(MemorySegment in, long[] sendCounts, MemorySegment out, long[] recvCounts,
                                           DataType type) {
        return async(Operation.ALL_TO_ALL, c -> c.allToAllV(in, sendCounts, out, recvCounts, type, true));
    }

    @Override
    public CollectiveHandle gatherAsync(MemorySegment in, MemorySegment out, DataType type, long count, int root) {
        return async(Operation.GATHER, c -> c.gather(in, out, type, count, null, root, true));
    }

    @Override
    public CollectiveHandle gatherVAsync(MemorySegment in, MemorySegment out, DataType type, long[] counts,
                                         int root) {
        return async(Operation.GATHER, c -> c.gather(in, out, type, -1, counts, root, true));
    }

    @Override
    public CollectiveHandle scatterAsync(MemorySegment in, MemorySegment out, DataType type, long count, int root) {
        return async(Operation.SCATTER, c -> c.scatter(in, out, type, count, null, root, true));
    }

    @Override
    public CollectiveHandle scatterVAsync(MemorySegment in, MemorySegment out, DataType type, long[] counts,
                                          int root) {
        return async(Operation.SCATTER, c -> c.scatter(in, out, type, -1, counts, root, true));
    }

    @Override
    public CollectiveHandle scanAsync(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op) {
        return async(Operation.SCAN, c -> c.scan(in, out, type, count, op, false, true));
    }

    @Override
    public CollectiveHandle exclusiveScanAsync(MemorySegment in, MemorySegment out, DataType type, long count,
                                               ReduceOp op) {
        return async(Operation.EXCLUSIVE_SCAN, c -> c.scan(in, out, type, count, op, true, true));
    }

    // ------------------------------------------------------------------------------------------------ rpc

    @Override
    public Rpc rpc() {
        if (rpc == null) {
            throw new UnsupportedOperationException("this communicator was built without RPC");
        }
        return rpc;
    }

    /** The group and generation a remote call to {@code rank} runs on, once it may run. */
    record RpcTarget(Group group, int generation) {
    }

    /**
     * Where a remote call to {@code rank} (in this communicator's numbering, already checked against its size) goes:
     * after an automatic recovery in progress, on an open communicator.
     */
    RpcTarget rpcTarget(int rank, Deadline deadline) {
        View v = current(Operation.RPC, deadline);
        Group g = v.group();
        Checks.rank("rank", rank, g.size());
        checkOpen(new ErrorContext(Operation.RPC, g.rank(), g.size(), g.id(), -1, -1, rank));
        return new RpcTarget(g, v.generation());
    }

    /** A remote call failed by a lost peer: announced with the rebuild it caused (policy automatic). */
    PeerFailedException rpcPeerFailed(PeerFailedException e, int generation) {
        return afterFailure(e, generation);
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            onClose.run();
        }
    }

    private void checkOpen(ErrorContext context) {
        if (closed.get()) {
            throw new CommunicatorClosedException(context, "failed: the communicator was closed");
        }
        String aborted = membership == null ? null : membership.abortedDetail(view.group(), context.peer());
        if (aborted != null) {
            throw new PeerFailedException(context, aborted);
        }
    }

    /** Typed send of an array (little-endian on the wire). */
    private void sendArray(int dest, int tag, MemorySegment heap, ValueLayout element) {
        send(dest, tag, WireArrays.wire(heap, element));
    }

    /** Typed receive into an array (little-endian on the wire); see {@link WireArrays#receive}. */
    private int recvTyped(int src, int tag, MemorySegment heap, ValueLayout element) {
        return WireArrays.receive(b -> recv(src, tag, b), heap, element, () -> "recv on rank " + rank() + " (comm "
                + id() + ", tag " + tag + "): rank " + src);
    }
}
