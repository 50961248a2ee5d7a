package io.nexar.transport.quic.bulk;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;

/**
 * The writing side of a {@link BulkSocket}: plaintext into output buffers ({@link #fill}: TLS records through the
 * socket's {@link SSLEngine}, or a copy for plain TCP), output buffers to the socket ({@link #flush}, which waits;
 * {@link #tryWrite}, which does not), and the end of the output ({@link #finishOutput}).
 *
 * <p><b>Copies.</b> A message's payload is read once, by the cipher (TLS), which encrypts it into the output buffer;
 * or copied once into it (plain). Output buffers are on the heap for TLS (the JDK's AES-GCM is about twice as fast on
 * heap buffers as on direct ones) and direct for plain TCP. With a native engine, a frame's header and whatever of its
 * payload does not fill whole records is first gathered into one direct record buffer (at most 16 KiB copied per
 * frame), so that a small message is one record. A large plain-TCP frame in direct memory skips the output buffers
 * ({@link #writeSome}).
 *
 * <p><b>Threading.</b> One thread at a time writes (the writer thread, or a sender holding the socket's write turn,
 * see {@link BulkWriter}); {@link #fill} runs in frame order, since it advances the TLS sequence numbers. The reader
 * thread only raises {@link #wantWrap} when a post-handshake message (a key update) needs an answer.
 */
final class BulkOutput {
    /** Bytes the writer gathers before one socket write: about 30 TLS records. */
    static final int OUT_BYTES = 512 << 10;
    /** No plaintext: a wrap that only produces what the engine itself needs to send. */
    static final ByteBuffer[] NOTHING = {ByteBuffer.allocate(0)};
    /** The most plaintext one TLS record carries (RFC 8446 5.1). */
    private static final int RECORD_PLAINTEXT = 16 << 10;

    private final SocketChannel channel;
    private final SSLEngine engine;
    private final SocketWaits waits;
    /** Output buffers are direct: plain TCP, or a native TLS engine. */
    private final boolean direct;
    /**
     * Native engine only: where {@link #fill} gathers the plaintext of one record from several buffers (a frame's
     * header and the start of its payload), so that a small message is one record and one {@code SSL_write}. Netty's
     * engine otherwise makes a record per buffer and copies each heap buffer into a direct one it allocates.
     */
    private final ByteBuffer gather;
    /** Set by the reader, cleared by {@link #fill}: the engine has a post-handshake message to send. */
    private volatile boolean wrapWanted;

    /**
     * @param engine the TLS engine, or null for plain TCP
     * @param direct true if the TLS engine wants direct buffers (a native engine), false for heap buffers (the JDK's)
     */
    BulkOutput(SocketChannel channel, SSLEngine engine, boolean direct, SocketWaits waits) {
        this.channel = channel;
        this.engine = engine;
        this.waits = waits;
        this.direct = direct || engine == null;
        this.gather = engine != null && direct ? ByteBuffer.allocateDirect(RECORD_PLAINTEXT) : null;
    }

    /** True for plain TCP: bytes go to the socket as they are, so a frame can be written from where it lies. */
    boolean isPlain() {
        return engine == null;
    }

    /** Notes that the reader saw a post-handshake message that needs an answer. Reader thread. */
    void wantWrap() {
        wrapWanted = true;
    }

    /** True if the reader saw a post-handshake message that needs an answer: the writer should {@link #fill}. */
    boolean wrapWanted() {
        return wrapWanted;
    }

    /**
     * A new output buffer for {@link #fill} and {@link #flush}: on the heap for TLS (the JDK's AES-GCM encrypts into
     * heap buffers about twice as fast as into direct ones), direct for plain TCP (no copy on the way to the socket).
     */
    ByteBuffer newOutBuffer() {
        int bytes = engine == null ? OUT_BYTES : Math.max(OUT_BYTES, 2 * engine.getSession().getPacketBufferSize());
        return direct ? ByteBuffer.allocateDirect(bytes) : ByteBuffer.allocate(bytes);
    }

    /**
     * Moves plaintext from {@code srcs} into {@code out} (encrypting it for TLS) until {@code out} is full or
     * {@code srcs} are empty. With empty {@code srcs}, only produces what the engine needs to send (a key update). One
     * thread at a time, in frame order: it advances the TLS sequence numbers.
     */
    void fill(ByteBuffer[] srcs, ByteBuffer out) throws IOException {
        if (engine == null) {
            copy(srcs, out);
            return;
        }
        wrapWanted = false;
        int packet = engine.getSession().getPacketBufferSize();
        while (out.remaining() >= packet
                && (hasRemaining(srcs) || engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP)) {
            if (gather != null && hasRemaining(srcs)) {
                wrapGathered(srcs, out);
                continue;
            }
            SSLEngineResult r = engine.wrap(srcs, out);
            if (r.getStatus() != SSLEngineResult.Status.OK) {
                throw new SSLException("TLS wrap failed: " + r.getStatus());
            }
            if (r.getHandshakeStatus() == HandshakeStatus.NEED_TASK) {
                BulkSocket.runTasks(engine);
            }
        }
    }

    /**
     * One record from {@code srcs} into {@code out} (which has room for a whole record), native engine: a direct
     * buffer holding at least a record's worth is encrypted where it is; anything else (a frame's header, a small
     * payload, the last bytes of one) is first gathered into {@link #gather}, up to a record, so the record is full.
     */
    private void wrapGathered(ByteBuffer[] srcs, ByteBuffer out) throws IOException {
        ByteBuffer first = null;
        for (ByteBuffer s : srcs) {
            if (s.hasRemaining()) {
                first = s;
                break;
            }
        }
        ByteBuffer src = first;
        if (!first.isDirect() || first.remaining() < RECORD_PLAINTEXT) {
            gather.clear();
            copy(srcs, gather);
            src = gather.flip();
        }
        int before = src.remaining();
        SSLEngineResult r = engine.wrap(src, out);
        if (r.getStatus() != SSLEngineResult.Status.OK) {
            throw new SSLException("TLS wrap failed: " + r.getStatus());
        }
        if (src == gather && gather.hasRemaining()) { // cannot happen with room for a record: bytes would be lost
            throw new SSLException("TLS wrap took " + r.bytesConsumed() + " of " + before + " gathered bytes");
        }
        if (r.getHandshakeStatus() == HandshakeStatus.NEED_TASK) {
            BulkSocket.runTasks(engine);
        }
    }

    /** Copies from {@code srcs}, in order, as much as {@code dst} has room for. */
    private static void copy(ByteBuffer[] srcs, ByteBuffer dst) {
        for (ByteBuffer s : srcs) {
            int n = Math.min(s.remaining(), dst.remaining());
            if (n > 0) {
                int limit = s.limit();
                s.limit(s.position() + n);
                dst.put(s);
                s.limit(limit);
            }
        }
    }

    /** True if any of {@code srcs} has bytes left. */
    static boolean hasRemaining(ByteBuffer[] srcs) {
        for (ByteBuffer s : srcs) {
            if (s.hasRemaining()) {
                return true;
            }
        }
        return false;
    }

    /** Writes what {@link #fill} put into {@code out}, and clears it. Blocks while the socket's send buffer is full. */
    void flush(ByteBuffer out) throws IOException {
        out.flip();
        try {
            while (out.hasRemaining()) {
                if (channel.write(out) == 0) {
                    waits.awaitWritable();
                }
            }
        } finally {
            out.clear();
        }
    }

    /**
     * Plain TCP only: one gathering write of {@code srcs} (direct buffers) straight to the socket, as much as it takes
     * now, without waiting; saves the copy into an output buffer that {@link #fill} makes. The caller holds the
     * socket's write turn.
     *
     * @return the bytes written, 0 if the socket's send buffer is full
     */
    long writeSome(ByteBuffer[] srcs) throws IOException {
        return channel.write(srcs);
    }

    /**
     * Writes what {@link #fill} put into {@code out} as far as the socket takes it now, without waiting (after
     * {@link SocketWaits#goNonBlocking}): a sender writes its own small frame this way, saving the hand-off to the
     * writer thread.
     *
     * @return true if all of it was written ({@code out} is cleared); false if some is left ({@code out} is then
     *         prepared for {@link #flush}: what is left is between position and limit, after a compact)
     */
    boolean tryWrite(ByteBuffer out) throws IOException {
        out.flip();
        while (out.hasRemaining()) {
            if (channel.write(out) == 0) {
                out.compact(); // back to "being filled" with what is left, as flush expects
                return false;
            }
        }
        out.clear();
        return true;
    }

    /** Waits at most about {@code nanos} until the socket takes more bytes (see {@link SocketWaits}). */
    void awaitWritable(long nanos) throws IOException {
        waits.awaitWritable(nanos);
    }

    /** Ends the output after what was written: TLS close_notify, then a TCP FIN. Reading goes on. */
    void finishOutput(ByteBuffer out) throws IOException {
        if (engine != null) {
            engine.closeOutbound();
            while (!engine.isOutboundDone()) {
                SSLEngineResult r = engine.wrap(NOTHING, out);
                if (r.getStatus() == SSLEngineResult.Status.BUFFER_OVERFLOW) {
                    flush(out);
                } else if (r.bytesProduced() == 0) {
                    break;
                }
            }
        }
        flush(out);
        channel.shutdownOutput();
    }
}
