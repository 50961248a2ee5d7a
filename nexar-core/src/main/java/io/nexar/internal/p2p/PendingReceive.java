package io.nexar.internal.p2p;

import io.nexar.ErrorContext;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * A posted receive: the user's buffer and the future completed with the number of bytes received. Guarded by the
 * owning {@link Mailbox}'s lock; once {@link #result} is done, the mailbox never touches {@link #buffer} again.
 */
final class PendingReceive {
    final ErrorContext context;
    /** World rank of the source (the context's peer is the source in the communicator's numbering). */
    final int worldSrc;
    final MemorySegment buffer;
    final CompletableFuture<Long> result = new CompletableFuture<>();
    /** When it was posted (System.nanoTime). */
    final long postedNanos = System.nanoTime();
    /** The hang report of this receive, once one was made (docs/failure-model.md "Hang reports"). */
    volatile String hangReport;
    /** The message this receive is bound to, once matched. */
    InboundMessage bound;

    PendingReceive(ErrorContext context, int worldSrc, MemorySegment buffer) {
        this.context = context;
        this.worldSrc = worldSrc;
        this.buffer = buffer;
    }
}
