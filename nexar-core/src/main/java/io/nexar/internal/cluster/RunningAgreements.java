package io.nexar.internal.cluster;

import io.nexar.ErrorContext;
import io.nexar.NexarException;
import io.nexar.Operation;
import io.nexar.RecoveryPolicy;
import io.nexar.internal.collective.Group;
import io.nexar.internal.protocol.AgreeKind;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.util.Deadline;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Agreement}s a {@link Membership} runs, one per communicator being shrunk or rebuilt, with the future of
 * each one's decision: starting one (on a failure, a {@code shrink()} call or a peer's first AGREE), feeding it the
 * members' messages and suspicions, sending what it has to say and handing its outcome to {@link AgreementOutcomes}.
 * AGREE messages of a communicator this process does not know yet wait in {@link EarlyAgreements}.
 *
 * <p>Threading: the membership thread only, like the rest of {@link Membership}'s state.
 */
final class RunningAgreements {
    private static final Logger LOG = LoggerFactory.getLogger(RunningAgreements.class);
    /** How long one agreement message may wait for room on the control lane. */
    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(5);

    private final Membership m;
    private final Map<Integer, Agreement> agreements = new HashMap<>();
    private final Map<Integer, CompletableFuture<Decision>> results = new HashMap<>();
    private final EarlyAgreements early = new EarlyAgreements();
    private final AgreementOutcomes outcomes;

    RunningAgreements(Membership m) {
        this.m = m;
        this.outcomes = new AgreementOutcomes(m);
    }

    /** What a settled agreement does; also forgets stale cut-offs ({@link AgreementOutcomes#forgetStaleCutOffs}). */
    AgreementOutcomes outcomes() {
        return outcomes;
    }

    /** An AGREE message from world rank {@code from}. */
    void onMessage(int from, Message.Agree message) {
        if (m.state.aborted() != null && m.policy != RecoveryPolicy.ABORT) {
            return; // excluded, or no quorum: this process takes no further part
        }
        Agreement a = agreements.get(message.communicator());
        if (a == null) {
            Group g = m.groups.get(message.communicator());
            if (g == null) {
                if (!early.hold(from, message)) {
                    LOG.warn("rank {}: dropped an agreement message for unknown communicator {}", m.transport.rank(),
                            message.communicator());
                }
                return;
            }
            start(g);
            a = agreements.get(message.communicator());
        }
        a.onMessage(from, message);
        settle(a);
    }

    /** Communicator {@code communicator} became known here: the AGREE messages that came before it are handled now. */
    void known(int communicator) {
        for (EarlyAgreements.Held h : early.release(communicator)) {
            onMessage(h.from(), h.message());
        }
    }

    /** Starts the agreement on {@code g} if it is not running yet; its decision's future. */
    CompletableFuture<Decision> start(Group g) {
        CompletableFuture<Decision> result = results.get(g.id());
        if (result != null) {
            return result;
        }
        boolean isWorld = g.id() == m.state.world().id() && m.policy == RecoveryPolicy.AUTOMATIC;
        result = isWorld ? m.state.startRecovery() : new CompletableFuture<>();
        results.put(g.id(), result);
        var a = new Agreement(g.id(), m.generationOf(g.id()), m.transport.rank(), g.worldRanks());
        agreements.put(g.id(), a);
        for (int peer : m.down.keySet()) {
            a.suspect(peer);
        }
        a.start();
        settle(a);
        return result;
    }

    /** World rank {@code peer} is down: every agreement still running suspects it. */
    void suspect(int peer) {
        for (Agreement a : List.copyOf(agreements.values())) {
            if (a.outcome() == Agreement.Outcome.RUNNING) {
                a.suspect(peer);
                settle(a);
            }
        }
    }

    /** The world ranks the agreement on {@code communicator} waits for; empty if none runs. */
    List<Integer> waitingFor(int communicator) {
        Agreement a = agreements.get(communicator);
        return a == null ? List.of() : a.waitingFor();
    }

    /** Sends what {@code a} has to say and acts on its outcome. */
    private void settle(Agreement a) {
        for (Agreement.Send s : a.drainOutbox()) {
            if (m.down.containsKey(s.to()) && s.message().kind() != AgreeKind.DECIDE) {
                continue;
            }
            try {
                m.transport.send(s.to(), Lane.CONTROL, s.message(), Deadline.after(SEND_TIMEOUT),
                        new ErrorContext(Operation.RECOVERY, m.transport.rank(), m.transport.worldSize(),
                                a.communicator(), -1, -1, -1).withPeer(s.to()));
            } catch (NexarException e) {
                LOG.debug("rank {}: agreement message to rank {} not sent: {}", m.transport.rank(), s.to(),
                        e.getMessage());
            }
        }
        CompletableFuture<Decision> result = results.get(a.communicator());
        if (result == null || result.isDone()) {
            return;
        }
        outcomes.settled(a, result);
    }
}
