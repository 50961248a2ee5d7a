package io.nexar.internal.transport;

/**
 * The cause a transport gives {@link InboundHandler#onPeerDown} when the peer closed the link because it declared
 * <em>this</em> rank failed (its failure detector heard nothing from us, or recovery excluded us): the peer is not the
 * one that failed, and this process must not accuse it. Carries no stack.
 */
public final class DeclaredFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param detail what the peer said */
    public DeclaredFailed(String detail) {
        super(detail, null, false, false);
    }
}
