package io.nexar.internal.cluster;

import io.nexar.ErrorContext;
import io.nexar.MembershipEvent;
import io.nexar.NexarConfig;
import io.nexar.RecoveryPolicy;
import io.nexar.internal.collective.CollectiveEngine;
import io.nexar.internal.collective.Group;
import io.nexar.internal.protocol.GoodbyeReason;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.InboundRouter;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.Deadline;
import io.nexar.internal.util.LogContext;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * The process's membership service: hears of failed peers (from the transport, through the {@link InboundRouter}),
 * applies the recovery policy, runs the {@link Agreement}s that shrink communicators, excludes the members they
 * remove, and tells the application ({@link MembershipEvent}s).
 *
 * <p>Threading: all state has one owner, a single virtual thread ({@code nexar-membership-r<rank>}); the entry
 * points only enqueue work for it, so transport threads never block here and no lock spans I/O (docs/design.md section
 * 3). Listeners run on that thread too.
 */
public final class Membership implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Membership.class);

    // package-private where RunningAgreements and AgreementOutcomes (what a settled agreement does) use it too
    final Transport transport;
    final InboundRouter router;
    final CollectiveEngine engine;
    final RecoveryPolicy policy;
    private final Duration recoveryTimeout;
    final int minSize;
    private final ExecutorService owner;
    private final MembershipListeners listeners;

    // ---- owned by the membership thread
    final Map<Integer, String> down = new LinkedHashMap<>();
    final Map<Integer, Group> groups = new HashMap<>();
    private final Map<Integer, Integer> generations = new HashMap<>();
    private final RunningAgreements agreements = new RunningAgreements(this);

    // ---- read by any thread
    final ProcessState state;
    volatile Consumer<Decision> worldRebuilt = d -> { };
    private volatile boolean closed;

    /**
     * Creates the service and attaches it to {@code router}.
     *
     * @param transport the process's transport (agreement messages, exclusion)
     * @param router the process's inbound side
     * @param config recovery policy and timeout
     */
    public Membership(Transport transport, InboundRouter router, NexarConfig config) {
        this(transport, router, config, Group.world(transport.rank(), transport.worldSize()), 0);
    }

    /**
     * Creates the service for a process whose world communicator is {@code world} at {@code generation} (a worker
     * admitted into a running cluster), and attaches it to {@code router}.
     */
    public Membership(Transport transport, InboundRouter router, NexarConfig config, Group world, int generation) {
        this.transport = transport;
        this.router = router;
        this.engine = router.engine();
        this.policy = config.policy();
        this.recoveryTimeout = config.recoveryTimeout();
        this.minSize = config.worldMinSize();
        this.listeners = new MembershipListeners(transport.rank());
        this.owner = Executors.newSingleThreadExecutor(
                LogContext.threads(Thread.ofVirtual().name("nexar-membership-r" + transport.rank()).factory(),
                        transport.rank(), transport.worldSize()));
        this.state = new ProcessState(world, generation);
        run(() -> register(world, generation));
        router.attach(this);
    }

    /** The recovery policy. */
    public RecoveryPolicy policy() {
        return policy;
    }

    /**
     * Why every operation of the process now fails, or null: under policy abort "world rank 2 failed (...) (recovery
     * policy abort)", or why this process was excluded.
     */
    public String aborted() {
        return state.aborted();
    }

    /**
     * The failure that {@link #aborted()} reports, completing "cannot ..." in the numbering of {@code group} for an
     * operation whose peer is {@code peer} in that numbering (-1 for a collective); null if not aborted.
     */
    public String abortedDetail(Group group, int peer) {
        return state.abortedDetail(group, peer);
    }

    // ------------------------------------------------------------------------------------------------ entry points

    /** A communicator exists on this process (the world, a split or a rebuilt one). Any thread. */
    public void register(Group g) {
        run(() -> register(g, 0));
    }

    /**
     * World rank {@code peer} is gone: the first of two calls, made before the receive sides fail the operations
     * that need it. Under policy automatic a recovery is marked under way here, so an operation that fails below and
     * is retried at once waits for it instead of failing again. Any thread, never blocks.
     */
    public void beforePeerDown(int peer, Throwable cause) {
        if (policy == RecoveryPolicy.AUTOMATIC && !(cause instanceof io.nexar.internal.transport.DeclaredFailed)) {
            state.markRecovering(peer);
        }
    }

    /**
     * World rank {@code peer} is gone: the second call, after the receive sides failed what needed it (so those
     * operations name it precisely). Under policy abort every other operation fails now too, unless the peer left
     * politely ({@code why} starts with {@code "left ("}: a rank that closed its communicator is not a failure).
     * Any thread, never blocks.
     *
     * @param why completes "rank N ...", for example {@code failed (...)} or {@code left (...)}
     */
    public void onPeerDown(int peer, String why, Throwable cause) {
        if (cause instanceof io.nexar.internal.transport.DeclaredFailed && policy != RecoveryPolicy.ABORT) {
            excludedByPeer(peer, why);
            return;
        }
        // a rank outside the world (a newcomer a grow() did not admit, or not yet) aborts nothing; if a growth admits
        // it after all, grown() acts on it
        if (policy == RecoveryPolicy.ABORT && !GoodbyeReason.isPoliteLeave(why) && state.world().local(peer) >= 0) {
            abort(peer, why);
        }
        run(() -> handleDown(peer, why));
    }

    private void abort(int peer, String why) {
        String all = state.abort(peer, why);
        if (all != null) {
            router.abortAll(peer, all);
        }
    }

    /**
     * Peer {@code peer} declared this process failed and cut it off: this process is out (it must not accuse the
     * peer, whose view will prevail with the other members). Every operation fails from now on.
     */
    private void excludedByPeer(int peer, String why) {
        String reason = "this rank was excluded: rank " + peer + " " + why;
        if (!state.exclude(reason)) {
            return;
        }
        router.abortAll(-1, reason);
        CompletableFuture<Decision> pending = state.recovery();
        if (pending != null) {
            pending.completeExceptionally(new RecoveryFailure(reason));
        }
        run(() -> {
            for (Group g : List.copyOf(groups.values())) {
                emit(new MembershipEvent.Excluded(g.id(), reason));
            }
        });
    }

    /** An agreement message from world rank {@code from}. Any thread, never blocks. */
    public void onAgree(int from, Message.Agree m) {
        run(() -> agreements.onMessage(from, m));
    }

    /**
     * Shrinks {@code g} (see {@link io.nexar.Communicator#shrink()}): starts or joins its agreement and waits for the
     * decision, at most setting {@code recovery.timeout}.
     *
     * @return the survivors' communicator
     */
    public Decision shrink(Group g, ErrorContext context) {
        var future = new CompletableFuture<CompletableFuture<Decision>>();
        run(() -> future.complete(agreements.start(g)));
        return await(future.thenCompose(f -> f), Deadline.after(recoveryTimeout), context, g.id());
    }

    /**
     * Under policy automatic: the current world group, after waiting (at most until {@code deadline}) for a recovery
     * in progress. Under other policies the world as it was formed.
     */
    public Group currentWorld(Deadline deadline, ErrorContext context) {
        CompletableFuture<Decision> r = state.recovery();
        if (r != null && !r.isDone() && state.aborted() == null) {
            await(r, deadline, context, state.world().id());
        }
        return state.world();
    }

    /**
     * Under policy automatic, after an operation failed because a peer was lost: waits until the world has been
     * rebuilt past generation {@code seen} (the recovery may not even have started here yet: the failure can reach an
     * operation before the failure detector reports it), until this process can no longer take part, or until
     * {@code deadline}.
     *
     * @return the world's generation now
     */
    public int awaitRebuild(int seen, Deadline deadline) {
        return state.awaitRebuild(seen, deadline);
    }

    /**
     * The world communicator {@code old} grew into {@code next} ({@link io.nexar.Communicator#grow}): from now on
     * failures and recoveries concern {@code next}. Called by the growing thread before {@code next} carries traffic.
     */
    public void grown(Group old, Group next, int generation) {
        state.rebuilt(next, generation);
        run(() -> {
            groups.remove(old.id()); // replaced: its members' failures are reported once, on the grown world
            register(next, generation);
            for (var d : down.entrySet()) { // a newcomer that failed during the growth: act on it now
                if (next.local(d.getKey()) < 0 || old.local(d.getKey()) >= 0 || state.aborted() != null) {
                    continue;
                }
                if (policy == RecoveryPolicy.AUTOMATIC) {
                    agreements.start(next);
                    break;
                } else if (policy == RecoveryPolicy.ABORT && !GoodbyeReason.isPoliteLeave(d.getValue())) {
                    abort(d.getKey(), d.getValue());
                    break;
                }
            }
            emit(new MembershipEvent.Grown(old.id(), next.id(), generation, old.size(), next.size()));
        });
    }

    /** Under policy automatic: called (on the membership thread) with each rebuilt world. */
    public void onWorldRebuilt(Consumer<Decision> hook) {
        worldRebuilt = hook;
    }

    /** Registers a listener for the communicators whose ids {@code communicators} accepts. */
    public io.nexar.MembershipWatch watch(IntPredicate communicators, Consumer<MembershipEvent> consumer) {
        return listeners.watch(communicators, consumer);
    }

    /** Stops the membership thread; pending shrinks fail. Idempotent, bounded. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        owner.shutdownNow();
        try {
            owner.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ------------------------------------------------------------------------------------------------ the owner

    private void run(Runnable task) {
        if (closed) {
            return;
        }
        try {
            owner.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.error("rank {}: membership task failed", transport.rank(), e);
                }
            });
        } catch (RejectedExecutionException stopping) {
            LOG.debug("rank {}: membership service is closed", transport.rank());
        }
    }

    void register(Group g, int generation) {
        groups.putIfAbsent(g.id(), g);
        generations.putIfAbsent(g.id(), generation);
        agreements.known(g.id());
    }

    /** The generation of communicator {@code comm} (rebuilds and growths of it so far); 0 if unknown. */
    int generationOf(int comm) {
        return generations.getOrDefault(comm, 0);
    }

    /**
     * Ranks this process reported down because no route reached them are reached again (a sparse world's rebuild
     * bridged the hole): they are no longer suspected. Any thread.
     */
    public void reachableAgain() {
        run(() -> agreements.outcomes().forgetStaleCutOffs());
    }

    private void handleDown(int peer, String why) {
        // a cut-off report made before this rank applied the decision whose bridge reaches the rank again: stale
        if (router.reachesAgain(peer) || down.putIfAbsent(peer, why) != null) {
            return;
        }
        // a rank that left politely, or one this rank stopped hearing because it closed its own transport: no alarm
        boolean expected = GoodbyeReason.isPoliteLeave(why) || why.contains("(this rank closed");
        LOG.atLevel(expected ? Level.INFO : Level.WARN).log("peer down: world rank {} {}", peer, why);
        for (Group g : List.copyOf(groups.values())) {
            int r = g.local(peer);
            if (r >= 0) {
                emit(new MembershipEvent.RankFailed(g.id(), r, peer, why));
            }
        }
        Group world = state.world();
        if (policy == RecoveryPolicy.AUTOMATIC && world.local(peer) >= 0 && state.aborted() == null) {
            agreements.start(world);
        }
        agreements.suspect(peer);
    }

    /** Starts the agreement on {@code g} if it is not running yet; its decision's future. */
    CompletableFuture<Decision> start(Group g) {
        return agreements.start(g);
    }

    void emit(MembershipEvent event) {
        listeners.emit(event);
    }

    private Decision await(CompletableFuture<Decision> f, Deadline deadline, ErrorContext context, int comm) {
        return DecisionWait.await(f, deadline, context, () -> {
            var waiting = new CompletableFuture<List<Integer>>();
            run(() -> waiting.complete(agreements.waitingFor(comm)));
            return waiting.completeOnTimeout(List.of(), 1, TimeUnit.SECONDS).join();
        });
    }
}
