package io.nexar.internal.collective;

/**
 * The operations posted and not yet ended on one process, found by (communicator, sequence number) without a key
 * object: an {@link OpTable} of the {@link OpState}s themselves, which carry their communicator and sequence number. A
 * lookup per arriving chunk, an insert per post and a removal per end allocate nothing once the table has grown to the
 * most operations in flight. Guarded by its communicator's shard lock ({@link CommState#lock}; not thread-safe on its
 * own).
 */
final class ActiveOps extends OpTable<OpState> {

    @Override
    int commOf(OpState op) {
        return op.group.id();
    }

    @Override
    long seqOf(OpState op) {
        return op.seq;
    }

    /**
     * Fails every operation held for which {@code failure} gives an exception (null: leave it), passing
     * {@code fromAbort} to {@link OpState#fail}. Failing does not change the table.
     */
    void failEach(java.util.function.Function<OpState, io.nexar.NexarException> failure, boolean fromAbort) {
        for (int i = 0; i < capacity(); i++) {
            OpState op = at(i);
            io.nexar.NexarException e = op == null ? null : failure.apply(op);
            if (e != null) {
                op.fail(e, fromAbort);
            }
        }
    }

    /**
     * Removes {@code op} itself.
     *
     * @return false if it was not held
     */
    boolean remove(OpState op) {
        return remove(op.group.id(), op.seq, op) != null;
    }
}
