package io.nexar.internal.comm;

import io.nexar.CollectiveHandle;
import io.nexar.CommunicatorClosedException;
import io.nexar.ErrorContext;
import io.nexar.MembershipEvent;
import io.nexar.MembershipWatch;
import io.nexar.NexarConfig;
import io.nexar.NexarException;
import io.nexar.Operation;
import io.nexar.PeerFailedException;
import io.nexar.internal.cluster.Membership;
import io.nexar.internal.collective.CollectiveEngine;
import io.nexar.internal.collective.Collectives;
import io.nexar.internal.collective.Group;
import io.nexar.internal.collective.ScheduleExecutor;
import io.nexar.internal.rpc.RpcEngine;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.CallTimeout;
import io.nexar.internal.util.Checks;
import io.nexar.internal.util.Deadline;
import io.nexar.rpc.RpcHandler;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The recovery layer of one {@link TransportCommunicator}, and its only owner of membership state: the current
 * {@link View}, whether the communicator is closed or aborted, and (for the world communicator under policy
 * automatic) the rebuilds of the world, each announced to the application exactly once (see
 * {@link RebuildAnnouncements}). Every operation of the communicator gets its view here ({@link #current}) and passes
 * a failure by a lost peer through {@link #afterFailure}.
 *
 * <p>Threads: any number of application threads call in at once; {@link Membership}'s thread replaces the view after
 * a rebuild ({@link #adopt}), the growing thread after {@code grow()} ({@link #grown}).
 */
final class Recovery {
    private final Transport transport;
    private final CollectiveEngine engine;
    private final RpcEngine rpcEngine;
    private final NexarConfig config;
    /** Null when built by hand without one: no shrink, no events, no recovery policy. */
    private final Membership membership;
    /** True for the world communicator under recovery policy automatic: it follows the rebuilt world. */
    private final boolean followsWorld;
    /** Null unless {@link #followsWorld}. */
    private final RebuildAnnouncements announcements;
    /** The communicator's functions, bound in {@link #rpcEngine} under each id the communicator has. */
    private final Map<Integer, RpcHandler<MemorySegment, MemorySegment>> rpcHandlers;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Every communicator id this communicator has had (an automatic recovery or a growth gives it a new one). */
    private final Set<Integer> lineage = ConcurrentHashMap.newKeySet();
    private volatile View view;

    /**
     * @param shared the process's shared parts
     * @param group the communicator's first group
     * @param generation the world generation it starts on
     * @param followsWorld whether it follows the rebuilt world (the world communicator under policy automatic)
     * @param rpcHandlers the communicator's RPC functions (bound under each of its ids)
     */
    Recovery(Shared shared, Group group, int generation, boolean followsWorld,
             Map<Integer, RpcHandler<MemorySegment, MemorySegment>> rpcHandlers) {
        this.transport = shared.transport();
        this.engine = shared.engine();
        this.rpcEngine = shared.rpcEngine();
        this.config = shared.config();
        this.membership = shared.membership();
        this.followsWorld = followsWorld;
        this.announcements = followsWorld ? new RebuildAnnouncements(generation) : null;
        this.rpcHandlers = rpcHandlers;
        adopt(group, generation);
        if (membership != null) {
            membership.register(group);
            if (followsWorld) {
                membership.onWorldRebuilt(d -> {
                    if (transport instanceof io.nexar.internal.transport.RelayTransport relay) {
                        // first: the rebuilt world's first operation must already take the rebuilt routes
                        relay.rebuilt(r -> d.group().local(r) >= 0);
                    }
                    adopt(d.group(), d.generation());
                });
            }
        }
    }

    /** The view as it is now, without waiting for a recovery (for numbering and diagnostics). */
    View view() {
        return view;
    }

    /** Null when built without a membership service. */
    Membership membership() {
        return membership;
    }

    /** The communicator's RPC functions, bound under each of its ids. */
    Map<Integer, RpcHandler<MemorySegment, MemorySegment>> rpcHandlers() {
        return rpcHandlers;
    }

    boolean followsWorld() {
        return followsWorld;
    }

    /** Makes {@code group} the current view (the first one, a rebuilt world, or a grown one). */
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
     * {@code grow()} turned {@code old} into {@code next}: membership follows it, the application knows of it (its
     * own call made it), and operations run on it from now.
     */
    void grown(Group old, Group next, int generation) {
        membership.grown(old, next, generation);
        if (announcements != null) {
            announcements.acknowledge(generation);
        }
        adopt(next, generation);
    }

    /**
     * The current view, after waiting for an automatic recovery in progress (bounded by {@code deadline}). The first
     * call after a rebuild that the application has not been told about (its own operations all succeeded) throws a
     * {@link PeerFailedException} saying so: every survivor learns of every rebuild exactly once, however many
     * threads call at once, and can resynchronize its state with the others.
     */
    View current(Operation operation, Deadline deadline) {
        View v = view;
        if (followsWorld) {
            membership.currentWorld(deadline, context(operation, v.group()));
            v = view;
            if (announcements.claim(v.generation())) {
                throw new PeerFailedException(context(operation, v.group()), "cannot run: the world communicator was"
                        + " rebuilt without a failed rank (recovery " + v.generation() + "; this rank is now rank "
                        + v.group().rank() + " of " + v.group().size() + "); resynchronize the application's state and"
                        + " retry");
            }
        }
        return v;
    }

    /**
     * Under policy automatic: waits (bounded) for the recovery the failure {@code e} started and counts {@code e} as
     * the announcement of that rebuild, so the retried operation runs on the rebuilt communicator at once.
     *
     * @param seen the generation of the view the failed operation ran on
     * @return {@code e}, to throw
     */
    PeerFailedException afterFailure(PeerFailedException e, int seen) {
        if (transport instanceof io.nexar.internal.transport.RelayTransport relay) {
            // sparse topology: the ranks behind this one hear of the failure before this program can exit on it
            Group g = view.group();
            int peer = e.peer().orElse(-1);
            relay.beforeFailureSurfaces(peer >= 0 && peer < g.size() && e.context().communicator() == g.id()
                    ? g.world(peer) : -1);
        }
        if (followsWorld) {
            announcements.acknowledge(membership.awaitRebuild(seen, Deadline.after(config.heartbeatTimeout()
                    .plus(config.recoveryTimeout()))));
        }
        return e;
    }

    /** The context of a whole-communicator operation (no tag, no peer) on {@code group}. */
    static ErrorContext context(Operation operation, Group group) {
        return new ErrorContext(operation, group.rank(), group.size(), group.id(), -1, -1, -1);
    }

    /** The view whose collectives may run {@code operation} (open communicator with an engine). */
    View collView(Operation operation) {
        if (engine == null) {
            throw new UnsupportedOperationException("this communicator was built without a collective engine");
        }
        // only a communicator that follows the world waits for a recovery: no deadline to make for the others
        View v = followsWorld ? current(operation, Deadline.after(CallTimeout.collective(config))) : view;
        checkOpen(operation, v.group());
        return v;
    }

    /**
     * {@link #collView} for a collective call: a call refused here (closed, aborted, or a rebuild to announce) records
     * its JFR event too, as one refused by the engine or failed while running does. A blocking call runs on the view's
     * collectives and passes a {@link PeerFailedException} through {@link #afterFailure} ({@link #run} does both).
     */
    View collectiveView(Operation operation) {
        try {
            return collView(operation);
        } catch (NexarException e) {
            ScheduleExecutor.recordRefused(view.group(), operation, e);
            throw e;
        }
    }

    /** Runs a blocking collective; a failure caused by a lost peer is announced with the rebuild (automatic). */
    void run(Operation operation, Consumer<Collectives> body) {
        View v = collectiveView(operation);
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
    CollectiveHandle async(Operation operation, Function<Collectives, CollectiveHandle> body) {
        View v = collectiveView(operation);
        CollectiveHandle h = body.apply(v.collectives());
        return followsWorld ? new AnnouncingHandle(h, this, v.generation()) : h;
    }

    /**
     * Where a remote call to {@code rank} (in the communicator's numbering) goes: after an automatic recovery in
     * progress, on an open communicator.
     */
    View rpcTarget(int rank, Deadline deadline) {
        View v = current(Operation.RPC, deadline);
        Group g = v.group();
        Checks.rank("rank", rank, g.size());
        checkOpen(new ErrorContext(Operation.RPC, g.rank(), g.size(), g.id(), -1, -1, rank));
        return v;
    }

    /** {@link #checkOpen(ErrorContext)} with the context of {@code operation} on {@code group}, made only to fail. */
    private void checkOpen(Operation operation, Group group) {
        if (closed.get() || membership != null && membership.abortedDetail(view.group(), -1) != null) {
            checkOpen(context(operation, group));
        }
    }

    /**
     * Fails {@code context}'s operation if the communicator was closed, or if the process can no longer take part
     * (its recovery policy gave up on a failed peer).
     */
    void checkOpen(ErrorContext context) {
        if (closed.get()) {
            throw new CommunicatorClosedException(context, "failed: the communicator was closed");
        }
        String aborted = membership == null ? null : membership.abortedDetail(view.group(), context.peer());
        if (aborted != null) {
            throw new PeerFailedException(context, aborted);
        }
    }

    boolean isClosed() {
        return closed.get();
    }

    /** @return true for the first call only (the caller then releases the communicator) */
    boolean markClosed() {
        return closed.compareAndSet(false, true);
    }

    /** Listens to membership events of every communicator id this one has had. */
    MembershipWatch watch(Consumer<MembershipEvent> listener) {
        Checks.notNull("listener", listener);
        if (membership == null) {
            throw new UnsupportedOperationException("this communicator was built without a membership service");
        }
        return membership.watch(lineage::contains, listener);
    }
}
