package io.nexar.internal.util;

import io.nexar.NexarConfig;
import java.time.Duration;

/**
 * The deadline of the calls made through a {@code Communicator.withTimeout} view: bound as a {@link ScopedValue} for
 * the duration of one call on the calling thread, and read where the call computes its {@link Deadline}. Outside
 * such a call the settings apply.
 */
public final class CallTimeout {
    private static final ScopedValue<Duration> TIMEOUT = ScopedValue.newInstance();

    private CallTimeout() {
    }

    /** The deadline of a point-to-point call starting now on this thread: the view's, else {@code p2p.timeout}. */
    public static Duration p2p(NexarConfig config) {
        return TIMEOUT.orElse(config.p2pTimeout());
    }

    /** The deadline of a collective call starting now on this thread: the view's, else {@code collective.timeout}. */
    public static Duration collective(NexarConfig config) {
        return TIMEOUT.orElse(config.collectiveTimeout());
    }

    /**
     * Runs {@code call} on this thread with {@code timeout} as the deadline of the calls it makes.
     *
     * @param timeout the deadline of each call, from its start
     * @param call the work
     * @return what {@code call} returns
     * @throws X what {@code call} throws
     */
    public static <R, X extends Throwable> R with(Duration timeout, ScopedValue.CallableOp<R, X> call) throws X {
        return ScopedValue.where(TIMEOUT, timeout).call(call);
    }
}
