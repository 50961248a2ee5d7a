package io.nexar.transport.quic;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.quic.DefaultQuicStreamFrame;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.nexar.ErrorContext;
import io.nexar.OperationCancelledException;
import io.nexar.OperationTimeoutException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import io.nexar.internal.transport.ContextSource;
import io.nexar.internal.util.Deadline;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The sending side of a {@link LaneStream} (any thread): each message is encoded into a new direct buffer (so the
 * caller's memory may be reused when it returns) and written as one write, so frames of concurrent senders never
 * interleave. Bytes written but not yet taken by quiche are counted; while they exceed the high-water mark a sender
 * waits, at most until its deadline, and is woken when writes complete, the stream's writability changes or the peer
 * goes down ({@link #wakeSenders}).
 */
final class LaneOutput {
    private final LaneStream lane;
    private final LaneOwner connection;
    private final QuicStreamChannel channel;
    private final int highWaterBytes;
    private final AtomicLong queuedBytes = new AtomicLong();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition room = lock.newCondition();
    private volatile int waiters;

    /** @param highWaterBytes senders wait while at least this many bytes are queued */
    LaneOutput(LaneStream lane, LaneOwner connection, QuicStreamChannel channel, int highWaterBytes) {
        this.lane = lane;
        this.connection = connection;
        this.channel = channel;
        this.highWaterBytes = highWaterBytes;
    }

    /**
     * Encodes {@code message} and writes it, first waiting while too many bytes of this lane are queued.
     *
     * @throws io.nexar.PeerFailedException if the peer goes down before there is room
     * @throws OperationTimeoutException if there is no room before the deadline
     * @throws OperationCancelledException if the calling thread is interrupted while waiting
     */
    void send(Message message, Deadline deadline, ContextSource context) {
        int size = Math.toIntExact(MessageCodec.encodedSize(message));
        awaitRoom(deadline, context);
        connection.link().checkUp(context);
        write(encode(message, size));
    }

    /** Writes {@code message} without waiting for room (event loop: Hello, Goodbye, heartbeats). */
    void writeNow(Message message) {
        write(encode(message, Math.toIntExact(MessageCodec.encodedSize(message))));
    }

    /** Ends this lane's output after everything already written: a FIN after the queued frames. */
    void finishOutput() {
        channel.writeAndFlush(new DefaultQuicStreamFrame(Unpooled.EMPTY_BUFFER, true));
    }

    private ByteBuf encode(Message message, int size) {
        ByteBuf buf = channel.alloc().directBuffer(size, size); // quiche reads direct buffers
        try {
            MessageCodec.encode(message, MemorySegment.ofBuffer(buf.nioBuffer(0, size)));
            buf.writerIndex(size);
            return buf;
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
    }

    private void write(ByteBuf frame) {
        int n = frame.readableBytes();
        queuedBytes.addAndGet(n);
        channel.writeAndFlush(frame).addListener(f -> {
            queuedBytes.addAndGet(-n);
            if (!f.isSuccess()) {
                connection.writeFailed(lane, f.cause());
            }
            wakeSenders();
        });
    }

    private void awaitRoom(Deadline deadline, ContextSource context) {
        if (queuedBytes.get() < highWaterBytes) {
            return;
        }
        lock.lock();
        try {
            waiters++;
            while (queuedBytes.get() >= highWaterBytes) {
                connection.link().checkUp(context);
                long left = deadline.remainingNanos();
                if (left <= 0) {
                    int peer = connection.link().peer;
                    throw new OperationTimeoutException(context.withPeer(peer), deadline.timeout(), "rank " + peer
                            + " to take more data on lane " + lane.name() + " (its flow-control window stayed full;"
                            + " is it posting receives?)");
                }
                room.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            int peer = connection.link().peer;
            throw new OperationCancelledException(context.withPeer(peer), "was interrupted while waiting for rank "
                    + peer + " to take more data");
        } finally {
            waiters--;
            lock.unlock();
        }
    }

    /** Bytes written but not yet taken by quiche (any thread; for tests and diagnostics). */
    long queuedBytes() {
        return queuedBytes.get();
    }

    /** The high-water mark of {@link #queuedBytes()} above which senders wait. */
    int highWaterBytes() {
        return highWaterBytes;
    }

    /** Wakes senders waiting for room, for example because the peer went down. Any thread. */
    void wakeSenders() {
        if (waiters > 0) {
            lock.lock();
            try {
                room.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }
}
