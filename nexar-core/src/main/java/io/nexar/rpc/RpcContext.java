package io.nexar.rpc;

import java.time.Duration;

/** What a {@link RpcHandler} knows about the request it answers. Valid for the handler's call; thread-safe. */
public interface RpcContext {

    /** {@return the caller's rank in the communicator the function is registered on} */
    int caller();

    /** {@return the function called} */
    int functionId();

    /** {@return the id of the communicator the function is registered on} */
    int communicatorId();

    /**
     * What is left of the caller's deadline: after it the caller has given up (the handler's thread is then
     * interrupted). Never negative.
     *
     * @return the time left
     */
    Duration remaining();
}
