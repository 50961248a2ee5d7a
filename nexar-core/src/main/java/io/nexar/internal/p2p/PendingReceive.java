package io.nexar.internal.p2p;

import io.nexar.ErrorContext;
import io.nexar.PeerFailedException;
import io.nexar.Status;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A posted receive: what it matches (a source world rank and a tag, either of which may be {@link #ANY}), the user's
 * buffer and the future completed with the {@link Status} of the message received. Guarded by the lock of its
 * communicator's shard ({@link #shard}); once {@link #result} is done, neither the mailbox nor a transport touches {@link #buffer}
 * again (a receive that ends early first stops its {@link #claims}). Handed out by
 * {@link Mailbox#post} so that its poster can await, poll or cancel it later.
 */
public final class PendingReceive {
    /** A wildcard source or tag (world ranks and tags are never negative). */
    public static final int ANY = -1;

    /** Its communicator's shard of the mailbox, whose lock guards this receive. */
    final MailShard shard;
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
    /** Chunks being written into {@link #buffer} by a transport ({@link ReceiveClaim}); null before the first. */
    List<ReceiveClaim> claims;

    PendingReceive(MailShard shard, ErrorContext context, int worldSrc, int tag, int[] members,
                   MemorySegment buffer) {
        this.shard = shard;
        this.context = context;
        this.communicator = shard.id;
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

    /** "rank 1", "rank 1 (world rank 3)" or "any rank": what this receive waits for, in messages. */
    String source() {
        if (worldSrc == ANY) {
            return "any rank";
        }
        int src = context.peer();
        return "rank " + src + (src == worldSrc ? "" : " (world rank " + worldSrc + ")");
    }

    /**
     * For a hang report, for example {@code recv from rank 1 tag 31 on communicator 0 for 10.0 s}; adds the world
     * rank it waits for to {@code waitingFor}. Under its shard's lock.
     */
    String describe(long now, Set<Integer> waitingFor) {
        if (worldSrc != ANY) {
            waitingFor.add(worldSrc);
        }
        var sb = new StringBuilder("recv from ").append(source());
        sb.append(" tag ").append(tag == ANY ? "any" : Integer.toString(tag)).append(" on communicator ")
                .append(communicator);
        if (bound != null) {
            sb.append(" (received ").append(bound.receivedBytes).append(" of ").append(bound.totalBytes)
                    .append(" bytes)");
        }
        return sb.append(" for ").append(String.format(Locale.ROOT, "%.1f", (now - postedNanos) / 1e9))
                .append(" s").toString();
    }

    /** The failure of this receive because world rank {@code src}, its source, is gone ({@code why}). */
    PeerFailedException peerFailed(int src, String why) {
        int peer = worldSrc == ANY ? rankOf(src) : context.peer();
        String world = peer == src ? "" : " (world rank " + src + ")";
        return new PeerFailedException(context.withPeer(peer), "cannot complete: rank " + peer + world + " " + why);
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
