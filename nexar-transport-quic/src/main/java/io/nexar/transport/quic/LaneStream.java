package io.nexar.transport.quic;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.nexar.ErrorContext;
import io.nexar.OperationCancelledException;
import io.nexar.OperationTimeoutException;
import io.nexar.internal.protocol.FrameDecoder;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import io.nexar.internal.transport.ContextSource;
import io.nexar.internal.transport.InboundHandler.Delivery;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.util.Deadline;
import io.nexar.transport.quic.bulk.BulkConnection;
import io.nexar.transport.quic.bulk.FrameDeadline;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * One lane of one QUIC connection: a long-lived bidirectional QUIC stream carrying length-prefixed frames in order. It
 * reports to its {@link LaneOwner} (the {@link Connection}). The TCP bulk lane has a class of its own,
 * {@link BulkConnection}.
 *
 * <p><b>Receiving</b> (event loop only). Bytes go through a {@link FrameDecoder}, which checks every length prefix
 * against {@code maxFrameBytes} before it reserves memory. The first frame must be the peer's Hello; Goodbye goes to
 * the owner; every other message goes to the {@link io.nexar.internal.transport.InboundHandler}. When the handler
 * answers {@link Delivery#FULL}, the lane keeps a copy of that message and the unread rest of its input, turns
 * {@code autoRead} off on this stream only (quiche then stops extending the stream's flow-control window, so the
 * sender soon waits) and offers the message again on a timer that backs off from 100 us to 2 ms. Once the message and
 * the kept input are delivered, reading resumes. Other lanes are not affected.
 *
 * <p><b>Frame deadline</b> (event loop). Once the first byte of a frame is in, the rest must keep coming, as on the
 * TCP bulk lane ({@link FrameDeadline}): a frame that receives no byte for {@code heartbeat.timeout}, or is not
 * complete within {@code heartbeat.timeout} plus its size at {@link FrameDeadline#MIN_FRAME_BYTES_PER_SECOND}, fails
 * the lane with a {@link io.nexar.ProtocolException} naming the peer, which is then reported failed. Without it, a
 * member that sends a frame header and then stalls or trickles holds the lane (and whatever waits for it) while its
 * heartbeats on the control lane keep it alive. Time while this lane holds a refused message (its own back-pressure)
 * does not count.
 *
 * <p><b>Sending</b> (any thread). {@link #send} encodes the message into a new buffer (so the caller's memory may be
 * reused when it returns) and writes it. Bytes written but not yet taken by quiche are counted; while they exceed the
 * high-water mark a sender waits, at most until its deadline. Quiche itself holds at most the peer's flow-control
 * window, so memory per lane is bounded by window + high water + one frame per concurrent sender. Frames of
 * concurrent senders never interleave: each is one write. That side is a {@link LaneOutput}.
 */
final class LaneStream extends ChannelInboundHandlerAdapter {
    private static final long FIRST_RETRY_NANOS = TimeUnit.MICROSECONDS.toNanos(100);
    private static final long MAX_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /** Thrown through the decoder to stop at a refused message; never escapes this class. */
    private static final RuntimeException REFUSED = new RuntimeException("refused", null, false, false) { };

    private final LaneOwner connection;
    private final Lane lane;
    private final String name;
    private final QuicStreamChannel channel;

    // ---- event loop only
    private FrameDecoder decoder;
    private boolean helloSeen;
    private Message held;
    private final ArrayDeque<ByteBuf> backlog = new ArrayDeque<>();
    private boolean paused;
    private boolean inputDone;
    private boolean finishReported;
    private long retryNanos = FIRST_RETRY_NANOS;
    /** Setting {@code heartbeat.timeout}: the frame deadline's base. */
    private final long frameTimeoutNanos;
    /** Frames decoded so far: a change tells a new frame from the one under way. */
    private long framesDecoded;
    private long framesAtBegin = -1;
    /** Whether a frame is under way, and when its first and its last byte arrived (the rule: {@link FrameDeadline}). */
    private boolean frameUnderWay;
    private final FrameDeadline frameDeadline = new FrameDeadline();
    private io.netty.util.concurrent.ScheduledFuture<?> frameCheck;

    /** The sending side: encodes, writes and holds senders back while too much is queued (any thread). */
    private final LaneOutput output;

    LaneStream(LaneOwner connection, Lane lane, QuicStreamChannel channel, int highWaterBytes,
               long frameTimeoutNanos) {
        this.frameTimeoutNanos = frameTimeoutNanos;
        this.connection = connection;
        this.lane = lane;
        this.name = lane.name();
        this.channel = channel;
        this.output = new LaneOutput(this, connection, channel, highWaterBytes);
    }

    /** The QUIC lane. */
    Lane lane() {
        return lane;
    }

    /** The lane's name for messages: the {@link Lane} name. */
    String name() {
        return name;
    }

    QuicStreamChannel channel() {
        return channel;
    }

    /**
     * Starts reading once the peer is known and verified (event loop), first decoding what arrived before.
     *
     * @param peer the peer's rank
     */
    void start(int peer, long maxFrameBytes) {
        decoder = new FrameDecoder(peer, maxFrameBytes);
        while (!backlog.isEmpty()) {
            if (!feed(backlog.poll())) {
                return; // paused: reading resumes once the refused message is taken
            }
        }
        channel.config().setAutoRead(true);
    }

    // ------------------------------------------------------------------ sending

    /**
     * Encodes {@code message} and writes it, first waiting while too many bytes of this lane are queued (see
     * {@link LaneOutput#send}).
     *
     * @throws io.nexar.PeerFailedException if the peer goes down before there is room
     * @throws OperationTimeoutException if there is no room before the deadline
     * @throws OperationCancelledException if the calling thread is interrupted while waiting
     */
    void send(Message message, Deadline deadline, ContextSource context) {
        output.send(message, deadline, context);
    }

    /** Writes {@code message} without waiting for room (event loop: Hello, Goodbye, heartbeats). */
    void writeNow(Message message) {
        output.writeNow(message);
    }

    /** Ends this lane's output after everything already written: a FIN after the queued frames. */
    void finishOutput() {
        output.finishOutput();
    }

    /** Wakes senders waiting for room, for example because the peer went down. Any thread. */
    void wakeSenders() {
        output.wakeSenders();
    }

    // ------------------------------------------------------------------ receiving (event loop)

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf buf = (ByteBuf) msg;
        if (connection.isDone()) {
            buf.release();
            return;
        }
        if (decoder == null) { // accepted before its dialer was verified: keep it, read no more until start()
            backlog.add(buf);
            channel.config().setAutoRead(false);
            return;
        }
        if (paused) {
            backlog.add(buf);
            return;
        }
        feed(buf);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        wakeSenders();
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        wakeSenders();
        inputEnded();
    }

    /**
     * The peer finished this lane (FIN). Netty keeps a half-closed QUIC stream open, so close it here: a lane ends
     * only when its peer leaves, and a stream left open would leak.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownReadComplete) {
            inputEnded();
            ctx.close();
        }
        ctx.fireUserEventTriggered(evt);
    }

    private void inputEnded() {
        inputDone = true;
        if (!paused && !finishReported) {
            finishReported = true;
            connection.laneFinished(this);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        connection.writeFailed(this, cause);
    }

    /** Decodes {@code buf}; returns false if a message was refused and the lane is now paused. */
    private boolean feed(ByteBuf buf) {
        ByteBuffer in = buf.nioBuffer();
        int start = in.position();
        try {
            decoder.feed(in, this::onFrame);
            buf.release();
            noteFrameProgress();
            return true;
        } catch (RuntimeException e) {
            if (e == REFUSED) {
                buf.skipBytes(in.position() - start);
                backlog.addFirst(buf);
                pause();
                return false;
            }
            buf.release();
            dropBacklog();
            connection.laneFailed(this, e);
            return false;
        }
    }

    private void onFrame(Message m) {
        if (connection.isDone()) {
            return;
        }
        connection.link().noteReceived(); // liveness is judged by what arrives, on every lane; start() had the link
        framesDecoded++;
        if (!helloSeen) {
            helloSeen = true;
            connection.onHello(this, m);
            return;
        }
        switch (m) {
            case Message.Hello h -> throw connection.protocolError("sent a second HELLO on lane " + name);
            case Message.Goodbye g -> connection.onGoodbye(g);
            default -> {
                if (connection.deliver(m) == Delivery.FULL) {
                    held = copy(m);
                    throw REFUSED;
                }
            }
        }
    }

    /** Bytes were fed: notes a frame under way (or none) and makes sure its deadline is watched. */
    private void noteFrameProgress() {
        if (decoder.bufferedBytes() == 0) {
            frameUnderWay = false;
            return;
        }
        boolean first = !frameUnderWay || framesAtBegin != framesDecoded;
        if (first) {
            frameUnderWay = true;
            framesAtBegin = framesDecoded;
        }
        frameDeadline.arrived(System.nanoTime(), first);
        if (frameCheck == null) {
            frameCheck = channel.eventLoop().schedule(this::checkFrameDeadline, frameTimeoutNanos,
                    TimeUnit.NANOSECONDS);
        }
    }

    /** Fails the lane if the frame under way missed its deadline; otherwise looks again when it would. */
    private void checkFrameDeadline() {
        frameCheck = null;
        if (!frameUnderWay || connection.isDone() || decoder == null) {
            return;
        }
        long now = System.nanoTime();
        if (paused) { // our own back-pressure holds the input: the peer is not late
            frameDeadline.arrived(now, true);
        }
        int size = decoder.frameBytes();
        Duration timeout = Duration.ofNanos(frameTimeoutNanos);
        long left = frameDeadline.nanosLeft(now, size < 0 ? 4 : size, timeout);
        if (left > 0) {
            frameCheck = channel.eventLoop().schedule(this::checkFrameDeadline, left, TimeUnit.NANOSECONDS);
            return;
        }
        var e = connection.protocolError(frameDeadline.missed(now, decoder.bufferedBytes(),
                (size < 0 ? "length prefix" : size + "-byte frame") + " on lane " + name, timeout));
        frameUnderWay = false;
        dropBacklog();
        connection.laneFailed(this, e);
    }

    private void pause() {
        retryNanos = FIRST_RETRY_NANOS;
        if (!paused) {
            paused = true;
            channel.config().setAutoRead(false);
        }
        channel.eventLoop().schedule(this::retry, retryNanos, TimeUnit.NANOSECONDS);
    }

    private void retry() {
        if (connection.isDone()) {
            dropBacklog();
            return;
        }
        Delivery d;
        try {
            d = connection.deliver(held);
        } catch (RuntimeException e) {
            dropBacklog();
            connection.laneFailed(this, e);
            return;
        }
        if (d == Delivery.FULL) {
            retryNanos = Math.min(2 * retryNanos, MAX_RETRY_NANOS);
            channel.eventLoop().schedule(this::retry, retryNanos, TimeUnit.NANOSECONDS);
            return;
        }
        held = null;
        while (!backlog.isEmpty()) {
            if (!feed(backlog.poll())) {
                return; // paused again; a retry is scheduled
            }
        }
        paused = false;
        if (inputDone) {
            inputEnded();
        } else {
            channel.config().setAutoRead(true);
        }
    }

    private void dropBacklog() {
        held = null;
        ByteBuf b;
        while ((b = backlog.poll()) != null) {
            b.release();
        }
    }

    /**
     * A copy of a decoded message that outlives its input buffer: encoded into a heap array and decoded from it, so
     * every message type (and every payload view) is covered. Only refused messages are copied, one per lane.
     */
    private Message copy(Message m) {
        MemorySegment frame = MemorySegment.ofArray(new byte[Math.toIntExact(MessageCodec.encodedSize(m))]);
        MessageCodec.encode(m, frame);
        return MessageCodec.decode(decoder.peer(), frame, decoder.maxFrameBytes());
    }
}
