package io.nexar.internal.p2p;

import io.nexar.ErrorContext;
import io.nexar.Status;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

/**
 * A posted receive: what it matches (a source world rank and a tag, either of which may be {@link #ANY}), the user's
 * buffer and the future completed with the {@link Status} of the message received. Guarded by the owning
 * {@link Mailbox}'s lock; once {@link #result} is done, the mailbox never touches {@link #buffer} again. Handed out by
 * {@link Mailbox#post} so that its poster can await, poll or cancel it later.
 */
public final class PendingReceive {
    /** A wildcard source or tag (world ranks and tags are never negative). */
    public static final int ANY = -1;

    final ErrorContext context;
    final int communicator;
    /** World rank of the source, or {@link #ANY} (the context's peer is the source in the communicator's numbering). */
    final int worldSrc;
    final int tag;
    /** World rank of each rank of the communicator; null when the two numberings are the same (the world). */
    final int[] members;
    final MemorySegment buffer;
    final CompletableFuture<Status> result = new CompletableFuture<>();
    /** When it was posted (System.nanoTime). */
    final long postedNanos = System.nanoTime();
    /** Position in the order receives were posted (MPI matches the earliest posted receive first). */
    long postStamp;
    /** The hang report of this receive, once one was made (docs/failure-model.md "Hang reports"). */
    volatile String hangReport;
    /** The message this receive is bound to, once matched. */
    InboundMessage bound;

    PendingReceive(ErrorContext context, int communicator, int worldSrc, int tag, int[] members,
                   MemorySegment buffer) {
        this.context = context;
        this.communicator = communicator;
        this.worldSrc = worldSrc;
        this.tag = tag;
        this.members = members;
        this.buffer = buffer;
    }

    /** True if a message from world rank {@code src} with {@code messageTag} satisfies this receive. */
    boolean matches(int src, int messageTag) {
        return (worldSrc == ANY || worldSrc == src) && (tag == ANY || tag == messageTag);
    }

    /** World rank {@code src} in the communicator's numbering. */
    int rankOf(int src) {
        return rankIn(members, src);
    }

    /** World rank {@code src} in the numbering of a communicator of {@code members} (null: the world's). */
    static int rankIn(int[] members, int src) {
        if (members == null) {
            return src;
        }
        for (int i = 0; i < members.length; i++) {
            if (members[i] == src) {
                return i;
            }
        }
        return -1;
    }

    /** True once the receive ended, successfully or not. */
    public boolean isDone() {
        return result.isDone();
    }

    /** The receive's outcome; used by handles (completed by the mailbox, never by its poster). */
    public CompletableFuture<Status> result() {
        return result;
    }

    /** The context its errors name. */
    public ErrorContext context() {
        return context;
    }
}
