package io.nexar.internal.comm;

import io.nexar.Communicator;
import io.nexar.Growth;
import io.nexar.NexarConfig;
import io.nexar.Operation;
import io.nexar.PeerFailedException;
import io.nexar.RecoveryPolicy;
import io.nexar.internal.cluster.Admissions;
import io.nexar.internal.cluster.Membership;
import io.nexar.internal.collective.CollectiveEngine;
import io.nexar.internal.collective.Group;
import io.nexar.internal.collective.Groups;
import io.nexar.internal.collective.Splits;
import io.nexar.internal.p2p.Mailbox;
import io.nexar.internal.p2p.P2pRecorder;
import io.nexar.internal.transport.HangReports;
import io.nexar.internal.transport.InboundRouter;
import io.nexar.internal.transport.Transport;
import io.nexar.rpc.Rpc;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The {@link Communicator} over any {@link Transport}: builds a communicator's layers and holds what is not a
 * delegated call (sub-communicators, close, RPC, diagnostics). Every other call is delegated, in one place, by
 * {@link DelegatingCommunicator} to {@link PointToPoint} (numbering, chunking, receives), the collectives of the
 * current view, {@link Recovery} (the current view, rebuilds announced once, closed and aborted) and
 * {@link Elastic} (shrink, grow, admission); RPC is {@link CommunicatorRpc}.
 *
 * <p>Sub-communicators ({@link #split}, {@link #dup}, {@link #group}) share the process's transport, mailbox and
 * collective engine ({@link Shared}); their {@link Group} translates communicator ranks to world ranks. Messages
 * travel to and are matched by world rank under the communicator's id; every argument and error uses the
 * communicator's numbering (errors about a failed peer add its world rank).
 */
public final class TransportCommunicator extends DelegatingCommunicator {
    private final Shared shared;
    /** Null when built without an RPC engine. */
    private final CommunicatorRpc rpc;
    private final Runnable onClose;
    /** How many group() calls this process made per (communicator id, listed world ranks): see {@link Groups}. */
    private final ConcurrentHashMap<String, AtomicInteger> groupCalls = new ConcurrentHashMap<>();

    /**
     * A point-to-point-only communicator over the whole world (no collectives, RPC or membership).
     *
     * @param transport the process's transport
     * @param mailbox the process's receive side (shared by its communicators)
     * @param config the process's configuration
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
     * @param transport the process's transport
     * @param mailbox the process's receive side (shared by its communicators)
     * @param engine the process's collective receive side (shared by its communicators), or null for none
     * @param config the process's configuration
     * @param id the communicator id
     * @param onClose run once by {@link #close()}
     */
    public TransportCommunicator(Transport transport, Mailbox mailbox, CollectiveEngine engine, NexarConfig config,
                                 int id, Runnable onClose) {
        this(new Shared(transport, mailbox, engine, null, config, null), new Group(id, transport.rank(),
                Group.world(transport.rank(), transport.worldSize()).worldRanks()), 0, Role.FIXED, onClose);
    }

    /** What a communicator's membership can do. */
    private enum Role {
        /** Keeps its group (sub-communicators, communicators built by hand). */
        FIXED,
        /** The world communicator of a process with a membership service: it can grow. */
        WORLD,
        /** The world communicator under recovery policy automatic: it can grow and follows the rebuilt world. */
        REBUILT_WORLD
    }

    private TransportCommunicator(Shared shared, Group group, int generation, Role role, Runnable onClose) {
        this(shared, new Recovery(shared, group, generation, role == Role.REBUILT_WORLD, new ConcurrentHashMap<>()),
                role, onClose);
    }

    private TransportCommunicator(Shared shared, Recovery recovery, Role role, Runnable onClose) {
        super(recovery, new PointToPoint(shared, recovery), new Elastic(shared, recovery, role != Role.FIXED));
        this.shared = shared;
        this.onClose = onClose;
        this.rpc = shared.rpcEngine() == null ? null
                : new CommunicatorRpc(recovery, shared.rpcEngine(), shared.config(), recovery.rpcHandlers());
    }

    /**
     * The world communicator of a process with a membership service: failures are handled by setting
     * {@code recovery.policy}, {@link #shrink()} and {@link #watch} work.
     *
     * @param transport the process's transport
     * @param router the transport's inbound handler
     * @param config the process's configuration
     * @param onClose run once by {@link #close()}
     * @return the world communicator
     */
    public static TransportCommunicator world(Transport transport, InboundRouter router, NexarConfig config,
                                              Runnable onClose) {
        startServices(transport, router, config);
        var membership = new Membership(transport, router, config);
        return new TransportCommunicator(shared(transport, router, config, membership),
                Group.world(transport.rank(), transport.worldSize()), 0, worldRole(config), onClose);
    }

    /**
     * The world communicator of a worker admitted into a running cluster by the members' {@link #grow}: the world
     * is {@code ticket}'s members followed by {@code newcomers} (world ranks in order, this process among them). Call
     * {@link #awaitAdmission} before handing it to the application.
     *
     * @param transport the process's transport
     * @param router the transport's inbound handler
     * @param config the process's configuration
     * @param ticket the admission: members, communicator id, generation
     * @param newcomers the world ranks admitted with this process, in order
     * @param onClose run once by {@link #close()}
     * @return the world communicator
     * @throws IllegalArgumentException if this process is not among {@code newcomers}
     * @throws IllegalStateException if the grown world's communicator id is already used here
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
                    + Arrays.toString(newcomers));
        }
        var world = new Group(ticket.communicator(), self, ranks);
        if (!router.engine().reserveId(world.id())) {
            throw new IllegalStateException("communicator id " + world.id() + " is already used on this process");
        }
        startServices(transport, router, config);
        var membership = new Membership(transport, router, config, world, ticket.generation());
        var c = new TransportCommunicator(shared(transport, router, config, membership), world, ticket.generation(),
                worldRole(config), onClose);
        c.elastic.admitted(new Growth(members.length, ranks.length, true));
        return c;
    }

    private static Shared shared(Transport transport, InboundRouter router, NexarConfig config, Membership m) {
        return new Shared(transport, router.mailbox(), router.engine(), router.rpc(), config, m);
    }

    private static Role worldRole(NexarConfig config) {
        return config.policy() == RecoveryPolicy.AUTOMATIC ? Role.REBUILT_WORLD : Role.WORLD;
    }

    /**
     * Hang reports and fingerprint probes' delay (once: the first world communicator made on the process installs
     * them) and RPC.
     */
    private static void startServices(Transport transport, InboundRouter router, NexarConfig config) {
        if (router.hangReports() == null) {
            router.engine().probesAfter(config.collectiveProbeAfter());
            router.attach(new HangReports(transport, router, config.hangReportAfter().toNanos()));
        }
        router.rpc().start(transport, config);
    }

    /**
     * Sets where {@link #grow} finds waiting workers (the seed); without it grow() admits nobody.
     *
     * @param source the waiting workers
     */
    public void admissions(Admissions source) {
        elastic.admissions(source);
    }

    /**
     * A newcomer's end of the members' growth: the barrier that closes their {@link #grow} on the grown world, so
     * the newcomer is only handed to the application once every member has admitted it.
     *
     * @throws io.nexar.NexarException if the members did not admit it (they excluded it) or the barrier failed
     */
    public void awaitAdmission() {
        elastic.awaitAdmission();
    }

    @Override
    public String diagnostics() {
        Transport transport = shared.transport();
        var sb = new StringBuilder("world rank ").append(transport.rank()).append(" of ").append(transport.worldSize())
                .append(" (rank ").append(rank()).append(" of ").append(worldSize()).append(" in communicator ")
                .append(id()).append("): ");
        HangReports h = shared.mailbox().hangReports();
        sb.append(h == null ? "(no diagnostics: hang reports are not installed)" : h.describeSelf(new TreeSet<>()));
        if (shared.engine() != null) {
            var recent = new ArrayList<String>();
            shared.engine().describeRecent(recent);
            recent.forEach(l -> sb.append('\n').append(l));
        }
        String p2p = h == null ? "" : h.p2p().render("", P2pRecorder.SIZE);
        if (!p2p.isEmpty()) {
            sb.append('\n').append(p2p);
        }
        String last = h == null ? null : h.lastReport();
        return last == null ? sb.toString() : sb.append("\nlast hang report: ").append(last).toString();
    }

    // ------------------------------------------------------------------------------ sub-communicators and membership

    @Override
    public Communicator split(int color, int key) {
        Group g = Splits.split(recovery.collView(Operation.SPLIT).collectives().onBehalfOf(Operation.SPLIT),
                shared.engine(), color, key);
        return g == null ? null : child(g);
    }

    @Override
    public Communicator dup() {
        return split(0, rank());
    }

    @Override
    public Communicator group(int... ranks) {
        java.util.Objects.requireNonNull(ranks, "ranks");
        int[] listed = ranks.clone();
        View v = recovery.collView(Operation.GROUP);
        Group parent = v.group();
        Groups.check(parent, listed);
        String key = parent.id() + ":" + Arrays.toString(Arrays.stream(listed).map(parent::world).toArray());
        int call = groupCalls.computeIfAbsent(key, k -> new AtomicInteger()).getAndIncrement();
        Group g;
        try {
            g = Groups.create(parent, listed, call, shared.engine(), shared.transport(), shared.config());
        } catch (PeerFailedException e) {
            throw recovery.afterFailure(e, v.generation());
        }
        return child(g);
    }

    /** A sub-communicator of {@code g} sharing this process's transport, receive sides and membership service. */
    private TransportCommunicator child(Group g) {
        String reason = "the communicator was closed";
        return new TransportCommunicator(shared, g, 0, Role.FIXED, () -> {
            shared.engine().closeCommunicator(g.id(), reason);
            shared.mailbox().closeCommunicator(g.id(), reason);
            if (shared.rpcEngine() != null) {
                shared.rpcEngine().closeCommunicator(g.id(), reason);
            }
        });
    }

    @Override
    public Communicator withTimeout(java.time.Duration timeout) {
        return TimedCommunicator.of(this, timeout);
    }

    @Override
    public Communicator shrink() {
        return elastic.shrink(this, this::child);
    }

    // ------------------------------------------------------------------------------------------------ rpc

    @Override
    public Rpc rpc() {
        if (rpc == null) {
            throw new UnsupportedOperationException("this communicator was built without RPC");
        }
        return rpc;
    }

    @Override
    public void close() {
        if (recovery.markClosed()) {
            onClose.run();
        }
    }
}
