package io.nexar.internal.collective;

import io.nexar.ErrorContext;
import io.nexar.OperationCancelledException;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.ContextSource;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.Deadline;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A network for the executor's unit tests: one {@link CollectiveEngine} per rank, and a {@link Transport} per rank
 * that hands each message straight to the receiver's engine on the sender's thread (as the in-process transport does,
 * without the codec). Faults fire on events: a {@link SendHook} sees every send before it is delivered, and
 * {@link #kill} reports a rank down to every other engine.
 */
final class FakeNetwork {
    /** Sees a send before its delivery; returns false to drop it, or throws to fail the send. */
    @FunctionalInterface
    interface SendHook {
        boolean beforeSend(int from, int to, Message message, ErrorContext context);
    }

    /** A message as sent. */
    record Sent(int from, int to, Message message) {
    }

    final CollectiveEngine[] engines;
    final List<Sent> sent = new CopyOnWriteArrayList<>();
    private final Transport[] transports;
    private final String[] down;
    volatile SendHook hook = (from, to, m, context) -> true;

    FakeNetwork(int size, long storeBytes) {
        engines = new CollectiveEngine[size];
        transports = new Transport[size];
        down = new String[size];
        for (int r = 0; r < size; r++) {
            engines[r] = new CollectiveEngine(storeBytes);
            transports[r] = new RankTransport(r);
        }
    }

    Transport transport(int rank) {
        return transports[rank];
    }

    /** Rank {@code rank} fails: every other engine hears of it, and its sends and the sends to it are dropped. */
    void kill(int rank, String why) {
        synchronized (down) {
            down[rank] = why;
        }
        for (int r = 0; r < engines.length; r++) {
            if (r != rank) {
                engines[r].onPeerDown(rank, why, null);
            }
        }
    }

    private String down(int rank) {
        synchronized (down) {
            return down[rank];
        }
    }

    /** The messages sent from {@code from} to {@code to} of type {@code type}, in order. */
    <M extends Message> List<M> sent(int from, int to, Class<M> type) {
        return sent.stream().filter(s -> s.from() == from && s.to() == to && type.isInstance(s.message()))
                .map(s -> type.cast(s.message())).toList();
    }

    private final class RankTransport implements Transport {
        private final int rank;

        RankTransport(int rank) {
            this.rank = rank;
        }

        @Override
        public int rank() {
            return rank;
        }

        @Override
        public int worldSize() {
            return engines.length;
        }

        @Override
        public void send(int peer, Lane lane, Message message, Deadline deadline, ContextSource context) {
            sent.add(new Sent(rank, peer, message));
            if (down(rank) != null) {
                return; // a dead rank's sends go nowhere
            }
            String peerDown = down(peer);
            if (peerDown != null) {
                throw new PeerFailedException(context.withPeer(peer), "cannot complete: rank " + peer + " " + peerDown);
            }
            if (!hook.beforeSend(rank, peer, message, context.errorContext())) {
                return;
            }
            boolean taken;
            try {
                taken = engines[peer].deliverWaiting(rank, message, deadline.deadlineNanos());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new OperationCancelledException(context.errorContext(), "was interrupted sending to rank " + peer);
            }
            if (!taken) {
                throw new OperationTimeoutException(context.withPeer(peer), deadline.timeout(), "rank " + peer
                        + " to make room");
            }
        }

        @Override
        public void exclude(int peer, String why) {
            kill(peer, why);
        }

        @Override
        public void close() {
        }
    }
}
