package io.nexar.internal.transport;

import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageType;
import io.nexar.internal.protocol.WireFormat;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The envelopes of the recovery protocol (AGREE, and PEER_TABLE link offers) that failed a {@link RelayTransport}'s
 * source check, held until its routes next change ({@link RelayArrivals#releaseHeld}): a survivor that switched to a
 * recovery's bridges first routes them over a link that this rank's routes do not know until it applies the same
 * decision itself. They are then checked again against the routes in use, so no envelope is ever accepted that these
 * routes would refuse (docs/protocol.md 4.8); whatever still fails is dropped. Bounded: at most {@link #MAX_HELD}
 * envelopes of at most {@link #MAX_FRAME_BYTES} each, the oldest dropped first.
 *
 * <p>Threading: any lane's reader holds, the rebuilding thread takes; one monitor guards the queue.
 */
final class HeldEnvelopes {
    static final int MAX_HELD = 256;
    static final int MAX_FRAME_BYTES = 64 * 1024;

    /** An envelope (its frame a heap copy) and the neighbour it arrived from. */
    record Held(int from, Message.Relay envelope) {
    }

    private final ArrayDeque<Held> held = new ArrayDeque<>();

    /** Whether the envelope's inner frame belongs to the recovery protocol, which a held frame must. */
    static boolean recoveryFrame(Message.Relay envelope) {
        MemorySegment frame = envelope.frame();
        if (frame.byteSize() <= WireFormat.TYPE_OFFSET || frame.byteSize() > MAX_FRAME_BYTES) {
            return false;
        }
        MessageType type = MessageType.fromCode(frame.get(ValueLayout.JAVA_BYTE, WireFormat.TYPE_OFFSET) & 0xFF);
        return type == MessageType.AGREE || type == MessageType.PEER_TABLE;
    }

    /**
     * Keeps a copy of an envelope from neighbour {@code from} (its frame is valid only during the caller's call).
     *
     * @return false if the oldest held envelope was dropped to make room
     */
    synchronized boolean hold(int from, Message.Relay envelope) {
        var copy = new Message.Relay(envelope.origin(), envelope.destination(), envelope.hops(), envelope.hopLimit(),
                MemorySegment.ofArray(envelope.frame().toArray(ValueLayout.JAVA_BYTE)));
        boolean room = held.size() < MAX_HELD;
        if (!room) {
            held.pollFirst();
        }
        held.addLast(new Held(from, copy));
        return room;
    }

    /** {@return the envelopes held so far, oldest first; none are held any more} */
    synchronized List<Held> takeAll() {
        List<Held> all = List.copyOf(held);
        held.clear();
        return all;
    }
}
