package io.nexar.transport.quic;

import io.nexar.ErrorContext;
import io.nexar.OperationCancelledException;
import io.nexar.OperationTimeoutException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import io.nexar.internal.transport.ContextSource;
import io.nexar.internal.transport.InboundHandler;
import io.nexar.internal.util.Deadline;
import java.lang.foreign.MemorySegment;

/**
 * Sends of a rank to itself: encoded and decoded in-process (so they obey the wire rules and the caller's memory is
 * copied before the send returns), then handed to the handler on the caller's thread, which waits there while the
 * handler has no room. No network and no event loop are involved.
 */
final class Loopback {
    private final int rank;
    private final InboundHandler handler;
    private final long maxFrameBytes;

    Loopback(int rank, InboundHandler handler, long maxFrameBytes) {
        this.rank = rank;
        this.handler = handler;
        this.maxFrameBytes = maxFrameBytes;
    }

    void send(Message message, Deadline deadline, ContextSource context) {
        MemorySegment frame = MemorySegment.ofArray(new byte[Math.toIntExact(MessageCodec.encodedSize(message))]);
        MessageCodec.encode(message, frame);
        Message copy = MessageCodec.decode(rank, frame, maxFrameBytes);
        boolean taken;
        try {
            taken = handler.deliverWaiting(rank, copy, deadline.deadlineNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OperationCancelledException(context.errorContext(), "was interrupted while waiting for its own store of"
                    + " unexpected messages to make room");
        }
        if (!taken) {
            throw new OperationTimeoutException(context.withPeer(rank), deadline.timeout(), "rank " + rank
                    + " (itself) to receive (its store of unexpected messages is full; is it posting receives?)");
        }
    }
}
