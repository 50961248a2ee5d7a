package io.nexar.internal.cluster;

import io.nexar.MembershipEvent;
import io.nexar.RecoveryPolicy;
import io.nexar.internal.collective.Group;
import io.nexar.internal.collective.Splits;
import io.nexar.internal.protocol.GoodbyeReason;
import io.nexar.internal.util.LogContext;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * What a {@link Membership} does once one of its {@link Agreement}s settles: a decision rebuilds the communicator
 * without the failed ranks (registers the survivors' group, rebuilds the world under policy automatic, excludes the
 * failed ranks, completes the shrink and tells the listeners, and recovers again if a survivor died meanwhile); an
 * exclusion or a lost quorum fails the recovery (this process takes no further part if it concerned the world).
 *
 * <p>Threading: runs on the membership thread only, on the membership's state.
 */
final class AgreementOutcomes {
    /** Its log lines are the membership's own (same logger name as before this class was split off). */
    private static final Logger LOG = LoggerFactory.getLogger(Membership.class);

    private final Membership m;

    AgreementOutcomes(Membership m) {
        this.m = m;
    }

    /** Acts on {@code a}'s outcome, unless it is still running; {@code result} is its decision's future, not done. */
    void settled(Agreement a, CompletableFuture<Decision> result) {
        switch (a.outcome()) {
            case RUNNING -> { }
            case DECIDED -> decided(a, result);
            case EXCLUDED -> failed(a, result, "this rank was excluded by the survivors (" + a.excludedBy()
                    + " listed it as failed)");
            case NO_QUORUM -> failed(a, result, "only " + (a.members().length - a.failed().length) + " of "
                    + a.members().length + " ranks remain reachable (failed world ranks " + Arrays.toString(a.failed())
                    + "); recovery needs more than half of them" + cutOffNote(a.failed()));
        }
    }

    /**
     * For a failed recovery on a sparse topology: which of {@code failed} are alive but cut off from this rank (their
     * down reason says so, {@code RelayNotices.reportCutOff}); empty if none.
     */
    private String cutOffNote(int[] failed) {
        int[] cut = Arrays.stream(failed).filter(w -> m.down.getOrDefault(w, "").contains("is cut off from world rank"))
                .toArray();
        return cut.length == 0 ? "" : "; of those, world ranks " + Arrays.toString(cut) + " may be alive but are cut"
                + " off from this rank: every path to them over the topology's links passes a failed rank, and"
                + " recovery bridges a hole only between ranks that still reach each other";
    }

    private void decided(Agreement a, CompletableFuture<Decision> result) {
        Group old = m.groups.get(a.communicator());
        int[] failed = a.decided();
        int[] survivors = Arrays.stream(old.worldRanks()).filter(w -> Arrays.binarySearch(failed, w) < 0).toArray();
        int generation = a.generation() + 1;
        if (survivors.length < m.minSize) {
            failed(a, result, "only " + survivors.length + " of " + old.size() + " ranks would remain (failed world"
                    + " ranks " + Arrays.toString(failed) + "), fewer than setting world.min.size " + m.minSize);
            return;
        }
        int id = Splits.deriveId(old.id(), -generation, 0x5eed, 0);
        if (!m.engine.reserveId(id)) {
            failed(a, result, "the rebuilt communicator's id " + id + " is already used on this process");
            return;
        }
        int self = m.transport.rank();
        var next = new Group(id, indexOf(survivors, self), survivors);
        m.register(next, generation);
        var decision = new Decision(old, next, failed, generation);
        decision.report();
        if (old.id() == m.state.world().id() && m.policy == RecoveryPolicy.AUTOMATIC) {
            m.state.rebuilt(next, generation); // before the exclusions below report their peers down: not in it
            m.worldRebuilt.accept(decision);
            forgetStaleCutOffs(); // before the next recovery below suspects them
            // an operation posted on the old world before the failure was known ends here if it still needs a
            // failed rank; one that needs only survivors runs on (after a polite leave, the last operations of a job
            // finish): each survivor tells the others the first operation it will not post on the old world
            m.router.retireCommunicator(old, failed, "the world communicator was rebuilt without world ranks "
                    + Arrays.toString(failed) + " (recovery " + generation + ")");
        }
        for (int w : failed) {
            m.transport.exclude(w, "was excluded by the survivors of communicator " + old.id() + " (recovery "
                    + generation + ")");
        }
        result.complete(decision);
        m.emit(decision.event());
        if (m.policy == RecoveryPolicy.AUTOMATIC && next.id() == m.state.world().id()) {
            for (int peer : m.down.keySet()) {
                if (next.local(peer) >= 0) { // died after the decision's value was fixed: recover again
                    m.start(next);
                    break;
                }
            }
        }
    }

    /**
     * Forgets the ranks this process reported down only because no route reached them, if the routes reach them now
     * (a sparse world's rebuild bridged the hole after the report, {@code InboundRouter.reachesAgain}): suspected in
     * the next agreement, such a rank would be merged into every survivor's failed set, and the survivors could lose
     * their quorum over ranks that are alive and reachable.
     */
    void forgetStaleCutOffs() {
        for (int peer : java.util.List.copyOf(m.down.keySet())) {
            if (m.router.reachesAgain(peer)) {
                m.down.remove(peer);
                LOG.info("recovery: world rank {} is reached again over the rebuilt world's links; world rank {} no"
                        + " longer counts it as cut off", peer, m.transport.rank());
            }
        }
    }

    private void failed(Agreement a, CompletableFuture<Decision> result, String why) {
        // the end of a job: the others closed their communicators one after another; nothing to warn about
        boolean othersLeft = Arrays.stream(a.failed())
                .allMatch(w -> GoodbyeReason.isPoliteLeave(m.down.getOrDefault(w, "")));
        try (var mdc = LogContext.scope(-1, -1, a.communicator())) {
            LOG.atLevel(othersLeft ? Level.DEBUG : Level.WARN).log("recovery: communicator {} could not be rebuilt"
                    + " on world rank {}: {}", a.communicator(), m.transport.rank(), why);
        }
        // no quorum only because ranks left: none of them was seen failing here (the others' proposals may name a
        // rank whose goodbye this rank has not read yet)
        boolean onlyLeaves = a.outcome() == Agreement.Outcome.NO_QUORUM && Arrays.stream(a.failed())
                .mapToObj(m.down::get).noneMatch(seen -> seen != null && !GoodbyeReason.isPoliteLeave(seen));
        if (a.communicator() == m.state.world().id() && m.state.exclude(why)) {
            if (onlyLeaves) {
                // the end of a job: what this rank's last operations still need from the ranks that left has
                // arrived, so they finish; every communicator takes no new operation
                for (Group g : java.util.List.copyOf(m.groups.values())) {
                    m.router.retireCommunicator(g, a.failed(), why);
                }
            } else {
                m.router.abortAll(-1, why);
            }
        }
        result.completeExceptionally(new RecoveryFailure(why));
        m.emit(new MembershipEvent.Excluded(a.communicator(), why));
    }

    private static int indexOf(int[] ranks, int r) {
        for (int i = 0; i < ranks.length; i++) {
            if (ranks[i] == r) {
                return i;
            }
        }
        return -1;
    }
}
