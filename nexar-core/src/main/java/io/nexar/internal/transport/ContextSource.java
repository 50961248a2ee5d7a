package io.nexar.internal.transport;

import io.nexar.ErrorContext;

/**
 * Where the {@link ErrorContext} of a failed {@link Transport#send} comes from. The transport asks for it only when
 * the send fails, so a send that succeeds builds none: a collective passes its operation's state, which builds its
 * context on first use, and a small collective allocates no context at all.
 *
 * <p>A transport uses the source only during the call it was given to (it keeps no reference): the caller may reuse
 * the object, as a blocking collective reuses its operation state, once the call returned.
 */
@FunctionalInterface
public interface ContextSource {

    /** {@return the context of the operation that sends} */
    ErrorContext errorContext();

    /**
     * {@return the context of the operation that sends, naming {@code peer} as the rank involved}
     *
     * @param peer the remote rank, in the operation's numbering
     */
    default ErrorContext withPeer(int peer) {
        return errorContext().withPeer(peer);
    }
}
