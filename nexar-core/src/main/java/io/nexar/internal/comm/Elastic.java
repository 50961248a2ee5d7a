package io.nexar.internal.comm;

import io.nexar.Communicator;
import io.nexar.CommunicatorClosedException;
import io.nexar.Growth;
import io.nexar.NexarConfig;
import io.nexar.Operation;
import io.nexar.PeerFailedException;
import io.nexar.internal.cluster.Admissions;
import io.nexar.internal.cluster.Membership;
import io.nexar.internal.collective.CollectiveEngine;
import io.nexar.internal.collective.Group;
import io.nexar.internal.jfr.MembershipChangeEvent;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.Checks;
import io.nexar.internal.util.Deadline;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Shrink, grow and admission of one {@link TransportCommunicator}: the membership half of its recovery layer, on top
 * of its {@link Recovery} (which owns the view these replace).
 */
final class Elastic {
    private final Transport transport;
    private final CollectiveEngine engine;
    private final NexarConfig config;
    private final Recovery recovery;
    /** True for the world communicator of a process with a membership service: it can grow. */
    private final boolean world;
    /** Where grow() finds waiting workers; null when nobody can join (for example an in-process cluster). */
    private volatile Admissions admissions;
    /** On a worker admitted into a running cluster: what its first grow() reports, then null. */
    private volatile Growth admitted;

    Elastic(Shared shared, Recovery recovery, boolean world) {
        this.transport = shared.transport();
        this.engine = shared.engine();
        this.config = shared.config();
        this.recovery = recovery;
        this.world = world;
    }

    /** Sets where {@link #grow} finds waiting workers (the seed); without it grow() admits nobody. */
    void admissions(Admissions source) {
        this.admissions = source;
    }

    /** On a worker admitted into a running cluster: what its first {@link #grow} reports. */
    void admitted(Growth growth) {
        this.admitted = growth;
    }

    /** See {@link TransportCommunicator#awaitAdmission()}. */
    void awaitAdmission() {
        recovery.collView(Operation.GROW).collectives().onBehalfOf(Operation.GROW).barrier();
    }

    /**
     * See {@link Communicator#shrink()}.
     *
     * @param self the communicator this layer belongs to (returned as it is when it follows the rebuilt world)
     * @param child makes a sub-communicator of a group
     */
    Communicator shrink(Communicator self, Function<Group, Communicator> child) {
        var event = new MembershipChangeEvent();
        event.begin();
        Communicator shrunk = shrinkNow(self, child);
        if (event.shouldCommit()) {
            event.kind = "shrink";
            event.communicator = recovery.view().group().id();
            event.detail = "to " + shrunk.worldSize() + " ranks as communicator " + shrunk.id();
            event.commit();
        }
        return shrunk;
    }

    private Communicator shrinkNow(Communicator self, Function<Group, Communicator> child) {
        Membership membership = recovery.membership();
        if (membership == null) {
            throw new UnsupportedOperationException("this communicator was built without a membership service");
        }
        Group group = recovery.view().group();
        var context = Recovery.context(Operation.SHRINK, group);
        if (recovery.isClosed()) {
            throw new CommunicatorClosedException(context, "failed: the communicator was closed");
        }
        if (recovery.followsWorld()) {
            recovery.current(Operation.SHRINK, Deadline.after(config.recoveryTimeout()));
            recovery.checkOpen(context);
            return self;
        }
        return child.apply(membership.shrink(group, context).group());
    }

    /** See {@link Communicator#grow(Consumer)}. */
    Growth grow(Consumer<Growth> stateTransfer) {
        Checks.notNull("stateTransfer", stateTransfer);
        if (!world) {
            throw new UnsupportedOperationException(recovery.membership() == null ? "this communicator was built"
                    + " without a membership service" : "grow() works on the world communicator only");
        }
        Growth joined = admitted;
        if (joined != null) { // the members' grow() that admitted this process is running its state transfer
            admitted = null;
            recovery.collView(Operation.GROW);
            stateTransfer.accept(joined);
            return joined;
        }
        View v = recovery.collView(Operation.GROW);
        Group old = v.group();
        if (transport instanceof io.nexar.internal.transport.RelayTransport relay) {
            // a sparse world no growth could work for is refused on every member (each computes the same answer)
            // before rank 0 asks the seed: the waiting workers stay waiting
            String refusal = relay.growRefusal(old.worldRanks(), config.worldMaxSize());
            if (refusal != null) {
                throw new UnsupportedOperationException(refusal);
            }
        }
        Group next;
        try {
            // the round's broadcast and allReduce run for grow: their errors name grow, the call the user made
            next = GrowRound.run(transport, engine, v.collectives().onBehalfOf(Operation.GROW), v.generation(),
                    admissions, config, Recovery.context(Operation.GROW, old));
        } catch (PeerFailedException e) {
            throw recovery.afterFailure(e, v.generation());
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
        recovery.grown(old, next, generation);
        var growth = new Growth(old.size(), next.size(), false);
        recovery.run(Operation.GROW, c -> c.onBehalfOf(Operation.GROW).barrier());
        stateTransfer.accept(growth);
        return growth;
    }
}
