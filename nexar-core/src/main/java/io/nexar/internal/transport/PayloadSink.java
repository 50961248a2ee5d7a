package io.nexar.internal.transport;

import java.lang.foreign.MemorySegment;

/**
 * The claimed destination of one large chunk's payload ({@link InboundHandler#claim}): a transport that reads frames
 * piece by piece (the bulk TCP lane) writes the payload here as its bytes arrive, decrypted straight into the
 * receiver's memory or reduced into it from a small buffer, instead of reading the whole frame into a frame buffer
 * and copying it from there (issue 13, "bulk without copies").
 *
 * <p>Protocol, on the one thread that reads the lane: for each piece {@link #begin()}, then either write into
 * {@link #direct()} or hand the piece to {@link #accept}, then {@link #pause()}; after the last byte
 * {@link #complete()}. If {@link #begin()} returns false the operation ended or failed meanwhile: read the rest of
 * the payload and drop it, then call {@link #complete()} all the same. If the lane fails midway, {@link #abandon()}.
 * The owner of the memory may stop a claim only between pieces, so a piece in progress is always finished into
 * memory that is still the receiver's.
 */
public interface PayloadSink {

    /**
     * The destination of the whole payload (exactly its size), to decrypt or read into directly between
     * {@link #begin()} and {@link #pause()}; null if the payload must go through {@link #accept} (a reducing receive,
     * or memory a byte buffer cannot view).
     */
    MemorySegment direct();

    /** Pieces handed to {@link #accept} must hold a multiple of this many bytes (the element size of a reduction). */
    int grain();

    /**
     * Combines {@code piece}, the payload's bytes from {@code at} on, into the destination (copy or reduce). Between
     * {@link #begin()} and {@link #pause()}; pieces arrive in order, each a multiple of {@link #grain()} bytes.
     */
    void accept(MemorySegment piece, long at);

    /** Starts writing a piece; false if the destination is no longer this claim's (drop the rest of the payload). */
    boolean begin();

    /** Ends writing a piece: the owner may now take the destination back. */
    void pause();

    /** The payload's last byte was read (and written, unless {@link #begin()} refused). */
    void complete();

    /** The lane failed before the payload was complete: nothing more comes for this claim. */
    void abandon();
}
