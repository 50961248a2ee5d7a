package io.nexar.internal.transport;

import io.nexar.internal.collective.CollectiveEngine;
import io.nexar.internal.p2p.Mailbox;
import io.nexar.internal.protocol.Message;

/**
 * The process's one {@link InboundHandler}: point-to-point traffic goes to the {@link Mailbox}, collective traffic
 * to the {@link CollectiveEngine}; Goodbye and peer failures reach both. Every transport hands its inbound messages
 * here, so the {@link Transport} and {@link InboundHandler} interfaces stay as they are.
 */
public final class InboundRouter implements InboundHandler {
    private final Mailbox mailbox;
    private final CollectiveEngine engine;

    /** Routes to {@code mailbox} and {@code engine}. */
    public InboundRouter(Mailbox mailbox, CollectiveEngine engine) {
        this.mailbox = mailbox;
        this.engine = engine;
    }

    /** The point-to-point receive side. */
    public Mailbox mailbox() {
        return mailbox;
    }

    /** The collective receive side. */
    public CollectiveEngine engine() {
        return engine;
    }

    @Override
    public Delivery onMessage(int peer, Message message) {
        return switch (message) {
            case Message.Collective c -> engine.onMessage(peer, c);
            case Message.CollectiveAbort a -> engine.onMessage(peer, a);
            case Message.Goodbye g -> {
                engine.onPeerDown(peer, "left (" + g.detail() + ")");
                yield mailbox.onMessage(peer, g);
            }
            default -> mailbox.onMessage(peer, message);
        };
    }

    @Override
    public boolean deliverWaiting(int peer, Message message, long deadlineNanos) throws InterruptedException {
        return switch (message) {
            case Message.Collective c -> engine.deliverWaiting(peer, c, deadlineNanos);
            case Message.CollectiveAbort a -> engine.deliverWaiting(peer, a, deadlineNanos);
            case Message.Goodbye g -> {
                engine.onPeerDown(peer, "left (" + g.detail() + ")");
                yield mailbox.deliverWaiting(peer, g, deadlineNanos);
            }
            default -> mailbox.deliverWaiting(peer, message, deadlineNanos);
        };
    }

    @Override
    public void onPeerDown(int peer, String why, Throwable cause) {
        engine.onPeerDown(peer, why);
        mailbox.onPeerDown(peer, why, cause);
    }

    /** Fails every pending receive and collective and refuses new ones. Idempotent. */
    public void close(String reason) {
        engine.close(reason);
        mailbox.close(reason);
    }
}
