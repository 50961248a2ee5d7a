package io.nexar.internal.comm;

import io.nexar.Communicator;
import io.nexar.internal.config.Units;
import io.nexar.internal.util.CallTimeout;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Objects;

/**
 * {@link Communicator#withTimeout}: a proxy of the communicator's interface that runs every call on the target inside
 * {@link CallTimeout#with}, so each wait of the call uses the view's deadline. A proxy rather than a hand-written
 * delegate: every method of {@link Communicator}, present and future (the array overloads, the asynchronous forms),
 * goes through the same one path, and none can be forgotten.
 */
final class TimedCommunicator implements InvocationHandler {
    private final Communicator target;
    private final Duration timeout;

    private TimedCommunicator(Communicator target, Duration timeout) {
        this.target = target;
        this.timeout = timeout;
    }

    /** A view of {@code target} with {@code timeout} as the deadline of each call. */
    static Communicator of(Communicator target, Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("withTimeout needs a positive timeout, not "
                    + Units.formatDuration(timeout));
        }
        return (Communicator) Proxy.newProxyInstance(Communicator.class.getClassLoader(),
                new Class<?>[] {Communicator.class}, new TimedCommunicator(target, timeout));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if (method.getDeclaringClass() == Object.class) {
            return switch (method.getName()) {
                case "equals" -> proxy == args[0];
                case "hashCode" -> System.identityHashCode(proxy);
                default -> target + " with timeout " + Units.formatDuration(timeout);
            };
        }
        if (method.getName().equals("withTimeout")) {
            return of(target, (Duration) args[0]);
        }
        try {
            ScopedValue.CallableOp<Object, ReflectiveOperationException> call = () -> method.invoke(target, args);
            return CallTimeout.with(timeout, call);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
