package io.nexar.transport.quic;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;

/**
 * The byte stream of one bulk-lane TCP connection, over a {@link SocketChannel}: TLS 1.3 through a JDK
 * {@link SSLEngine} driven here (no Netty), or plain. The channel blocks during setup (handshake and Hellos, one
 * thread), then is non-blocking ({@link #goNonBlocking}): the reader and the writer thread wait for it on a selector
 * each, and a sender can try to write its own small frame without ever blocking on the socket ({@link #writeNow}).
 *
 * <pre>
 *  writer thread                                   reader thread
 *  fill(srcs): plaintext -> out (wrap or copy)     readFully(dst): in -> dst (unwrap or read)
 *  flush():    out -> socket, one write per        spill: what a read or record brought beyond dst,
 *              up to OUT_BYTES (about 30 records)  kept for the next readFully
 * </pre>
 *
 * <p><b>Copies.</b> Sending, a message's payload is read once, by the cipher (TLS), which encrypts it into
 * {@code out}; or copied once into {@code out} (plain). {@code out} is a heap buffer for TLS (the JDK's AES-GCM is about
 * twice as fast on heap buffers as on direct ones) and direct for plain TCP. With a native engine, a frame's header and
 * whatever of its payload does not fill whole records is first gathered into one direct record buffer (at most 16 KiB
 * copied per frame), so that a small message is one record. Receiving, records are decrypted into the
 * caller's frame buffer itself (plaintext beyond the frame goes to {@code spill}); plain reads go straight into it.
 *
 * <p><b>Threading.</b> {@link #handshake} runs alone; afterwards {@link #readFully} belongs to one thread and
 * {@link #fill}/{@link #flush}/{@link #finishOutput} to another. The {@link SSLEngine} serialises its own wrap and
 * unwrap calls.
 */
final class BulkSocket {
    /** Bytes the writer gathers before one socket write: about 30 TLS records. */
    static final int OUT_BYTES = 512 << 10;
    /** Bytes one socket read may bring. */
    private static final int IN_BYTES = 512 << 10;
    static final ByteBuffer[] NOTHING = {ByteBuffer.allocate(0)};
    /** The most plaintext one TLS record carries (RFC 8446 5.1). */
    private static final int RECORD_PLAINTEXT = 16 << 10;

    private final SocketChannel channel;
    private final SSLEngine engine;
    /** Output (and, for TLS, input) buffers are direct: plain TCP, or a native TLS engine. */
    private final boolean direct;
    private final ByteBuffer in;
    private ByteBuffer spill;
    private final ByteBuffer[] scatter = new ByteBuffer[2];
    /**
     * Native engine only: where {@link #fill} gathers the plaintext of one record from several buffers (a frame's
     * header and the start of its payload), so that a small message is one record and one {@code SSL_write}. Netty's
     * engine otherwise makes a record per buffer and copies each heap buffer into a direct one it allocates.
     */
    private final ByteBuffer gather;
    private volatile boolean wrapWanted;
    /** After {@link #goNonBlocking}: where the reader and the writer wait for the socket. */
    private volatile Selector readable;
    private volatile Selector writable;

    /**
     * @param engine the TLS engine, in client or server mode, or null for plain TCP
     * @param direct true to give the TLS engine direct buffers (a native engine), false for heap buffers (the JDK's)
     */
    BulkSocket(SocketChannel channel, SSLEngine engine, boolean direct) {
        this.channel = channel;
        this.engine = engine;
        this.direct = direct || engine == null;
        if (engine == null) {
            in = null;
            spill = ByteBuffer.allocateDirect(64 << 10).flip();
        } else {
            int packet = engine.getSession().getPacketBufferSize();
            int inBytes = Math.max(IN_BYTES, 2 * packet);
            in = (direct ? ByteBuffer.allocateDirect(inBytes) : ByteBuffer.allocate(inBytes)).flip();
            spill = ByteBuffer.allocateDirect(engine.getSession().getApplicationBufferSize()).flip();
        }
        gather = engine != null && direct ? ByteBuffer.allocateDirect(RECORD_PLAINTEXT) : null;
    }

    /** True for a TLS connection. */
    boolean tls() {
        return engine != null;
    }

    /** The TLS session (after {@link #handshake}), or null for plain TCP. */
    SSLSession session() {
        return engine == null ? null : engine.getSession();
    }

    SocketChannel channel() {
        return channel;
    }

    // ------------------------------------------------------------------ handshake

    /** Runs the TLS handshake to its end (nothing for plain TCP). Blocks; the caller bounds it by closing the socket. */
    void handshake() throws IOException {
        if (engine == null) {
            return;
        }
        engine.beginHandshake();
        HandshakeStatus hs = engine.getHandshakeStatus();
        ByteBuffer sink = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize());
        ByteBuffer out = newOutBuffer();
        while (true) {
            switch (hs) {
                case NEED_WRAP -> {
                    SSLEngineResult r = engine.wrap(NOTHING, out);
                    flush(out);
                    if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                        throw new SSLException("the TLS handshake was closed");
                    }
                    hs = r.getHandshakeStatus();
                }
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                    SSLEngineResult r = engine.unwrap(in, sink);
                    switch (r.getStatus()) {
                        case BUFFER_UNDERFLOW -> {
                            if (!readMore()) {
                                throw new EOFException("the connection ended during the TLS handshake");
                            }
                        }
                        case CLOSED -> throw new SSLException("the TLS handshake was closed by the peer");
                        case BUFFER_OVERFLOW -> sink = ByteBuffer.allocate(2 * sink.capacity());
                        case OK -> {
                            if (sink.position() > 0) {
                                // Application data before the handshake ended: keep it for readFully.
                                sink.flip();
                                spill = copyOf(sink);
                                sink.clear();
                            }
                        }
                    }
                    hs = r.getHandshakeStatus();
                }
                case NEED_TASK -> {
                    runTasks();
                    hs = engine.getHandshakeStatus();
                }
                case FINISHED, NOT_HANDSHAKING -> {
                    return;
                }
            }
        }
    }

    private static ByteBuffer copyOf(ByteBuffer b) {
        ByteBuffer c = ByteBuffer.allocateDirect(Math.max(b.remaining(), 17 << 10));
        c.put(b).flip();
        return c;
    }

    private void runTasks() {
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null) {
            task.run();
        }
    }

    // ------------------------------------------------------------------ reading (reader thread)

    /**
     * Fills {@code dst} to its limit.
     *
     * @param atStart true if this read starts a frame: the stream may then end cleanly instead
     * @return false if the stream ended cleanly before the first byte (TLS close_notify, or TCP end for plain TCP,
     *         and only if {@code atStart}); true once {@code dst} is full
     * @throws EOFException if the stream ends within {@code dst}, or (TLS) without close_notify
     */
    boolean readFully(ByteBuffer dst, boolean atStart) throws IOException {
        boolean first = atStart;
        while (dst.hasRemaining()) {
            if (spill.hasRemaining()) {
                drainSpill(dst);
                first = false;
                continue;
            }
            int n = engine == null ? readPlain(dst) : unwrapInto(dst);
            if (n < 0) {
                if (first && n == -1) {
                    return false;
                }
                throw new EOFException(n == -1 ? "the connection ended within a frame"
                        : "the connection ended without a TLS close_notify");
            }
            if (n > 0) {
                first = false;
            }
        }
        return true;
    }

    /**
     * Reads into {@code dst} what the connection has now, without waiting (after {@link #goNonBlocking}): plaintext
     * left over from an earlier record first, then records already received, then one socket read.
     *
     * @return bytes put into {@code dst} (at least 1 if {@code dst} has room and data was there), 0 if nothing is
     *         there now, -1 at a clean end (TLS close_notify, or TCP end for plain TCP), -2 at an end of a TLS
     *         stream without close_notify
     */
    int readAvailable(ByteBuffer dst) throws IOException {
        if (spill.hasRemaining()) {
            int before = dst.position();
            drainSpill(dst);
            return dst.position() - before;
        }
        if (engine == null) {
            long n = scatterRead(dst);
            return n < 0 ? -1 : (int) n;
        }
        for (int attempts = 0; attempts < 64; attempts++) { // records without plaintext (tickets) are few
            if (!holdsWholeRecord(in)) { // read first: an unwrap now would only say BUFFER_UNDERFLOW (and allocate)
                int n = readIn();
                if (n <= 0) {
                    return n;
                }
                continue;
            }
            SSLEngineResult r = unwrapOnce(dst);
            switch (r.getStatus()) {
                case OK -> {
                    if (r.bytesProduced() > 0) {
                        return r.bytesProduced();
                    }
                }
                case CLOSED -> {
                    return -1;
                }
                case BUFFER_UNDERFLOW -> {
                    int n = readIn();
                    if (n <= 0) {
                        return n;
                    }
                }
                case BUFFER_OVERFLOW ->
                        spill = ByteBuffer.allocateDirect(engine.getSession().getApplicationBufferSize()).flip();
            }
        }
        return 0;
    }

    /** One non-blocking read into {@code in}: bytes read, 0 if none are there, -2 at the end of the stream. */
    private int readIn() throws IOException {
        in.compact();
        int n;
        try {
            n = channel.read(in);
        } finally {
            in.flip();
        }
        return n < 0 ? -2 : n;
    }

    /**
     * True if {@code b} starts with a whole TLS record: its 5-byte header (type, version, u16 length) and the length
     * it announces. A poll that finds less reads the socket before it asks the engine, so an empty poll costs one
     * read system call and no engine call.
     */
    static boolean holdsWholeRecord(ByteBuffer b) {
        int have = b.remaining();
        if (have < 5) {
            return false;
        }
        int at = b.position();
        int length = ((b.get(at + 3) & 0xFF) << 8) | (b.get(at + 4) & 0xFF);
        return have >= 5 + length;
    }

    /** Wakes a thread waiting in {@link #awaitReadable()}. Any thread. */
    void wakeReader() {
        Selector s = readable;
        if (s != null) {
            s.wakeup();
        }
    }

    private void drainSpill(ByteBuffer dst) {
        int n = Math.min(spill.remaining(), dst.remaining());
        int limit = spill.limit();
        spill.limit(spill.position() + n);
        dst.put(spill);
        spill.limit(limit);
    }

    /** Plain TCP: one scattering read into {@code dst}, overflow into the spill. -1 at the end of the stream. */
    private int readPlain(ByteBuffer dst) throws IOException {
        while (true) {
            long n = scatterRead(dst);
            if (n != 0) {
                return n < 0 ? -1 : (int) n;
            }
            awaitReadable();
        }
    }

    /**
     * TLS: decrypts one record into {@code dst} (overflow into the spill), reading from the socket as needed.
     *
     * @return plaintext bytes produced (0 for a handshake record), -1 after close_notify, -2 at the end of the stream
     *         without it
     */
    private int unwrapInto(ByteBuffer dst) throws IOException {
        while (true) {
            SSLEngineResult r = unwrapOnce(dst);
            switch (r.getStatus()) {
                case OK -> {
                    return r.bytesProduced();
                }
                case CLOSED -> {
                    return -1;
                }
                case BUFFER_UNDERFLOW -> {
                    if (!readMore()) {
                        return -2;
                    }
                }
                case BUFFER_OVERFLOW -> // the session's records grew: make room for one whole record
                        spill = ByteBuffer.allocateDirect(engine.getSession().getApplicationBufferSize()).flip();
            }
        }
    }

    /** Plain TCP: one read into {@code dst}, what does not fit into the spill. */
    private long scatterRead(ByteBuffer dst) throws IOException {
        spill.clear();
        scatter[0] = dst;
        scatter[1] = spill;
        try {
            return channel.read(scatter);
        } finally {
            spill.flip();
        }
    }

    /** TLS: one unwrap from {@code in} into {@code dst}, overflow into the spill; notes a key update to answer. */
    private SSLEngineResult unwrapOnce(ByteBuffer dst) throws IOException {
        spill.clear();
        scatter[0] = dst;
        scatter[1] = spill;
        SSLEngineResult r;
        try {
            r = engine.unwrap(in, scatter);
        } finally {
            spill.flip();
        }
        if (r.getHandshakeStatus() == HandshakeStatus.NEED_TASK) {
            runTasks();
        }
        if (engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP) {
            wrapWanted = true; // a post-handshake message (key update) to answer: the writer does
        }
        return r;
    }

    /** Reads more TLS bytes from the socket into {@code in}; false at the end of the stream. */
    private boolean readMore() throws IOException {
        in.compact();
        try {
            int n;
            while ((n = channel.read(in)) == 0 && in.hasRemaining()) {
                awaitReadable();
            }
            return n >= 0;
        } finally {
            in.flip();
        }
    }

    /** True if the reader saw a post-handshake message that needs an answer: the writer should {@link #fill}. */
    boolean wrapWanted() {
        return wrapWanted;
    }

    // ------------------------------------------------------------------ writing

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
            for (ByteBuffer s : srcs) {
                int n = Math.min(s.remaining(), out.remaining());
                if (n > 0) {
                    int limit = s.limit();
                    s.limit(s.position() + n);
                    out.put(s);
                    s.limit(limit);
                }
            }
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
                runTasks();
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
            for (ByteBuffer s : srcs) {
                int n = Math.min(s.remaining(), gather.remaining());
                if (n > 0) {
                    int limit = s.limit();
                    s.limit(s.position() + n);
                    gather.put(s);
                    s.limit(limit);
                }
            }
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
            runTasks();
        }
    }

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
                    awaitWritable();
                }
            }
        } finally {
            out.clear();
        }
    }

    /** True for plain TCP: bytes go to the socket as they are, so a frame can be written from where it lies. */
    boolean isPlain() {
        return engine == null;
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
     * {@link #goNonBlocking}): a sender writes its own small frame this way, saving the hand-off to the writer thread.
     *
     * @return true if all of it was written ({@code out} is cleared); false if some is left ({@code out} is then
     *         prepared for {@link #flush}: what is left is between position and limit, after a compact)
     */
    boolean writeNow(ByteBuffer out) throws IOException {
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

    /**
     * After setup: the socket no longer blocks; the reader and the writer wait for it on selectors of their own, so
     * that a sender can try a write without waiting ({@link #writeNow}). Setup (reader) thread, before the writer
     * thread starts.
     */
    void goNonBlocking() throws IOException {
        channel.configureBlocking(false);
        readable = Selector.open();
        writable = Selector.open();
        channel.register(readable, SelectionKey.OP_READ);
        channel.register(writable, SelectionKey.OP_WRITE);
    }

    /** Waits until the socket has bytes to read (non-blocking socket only). Throws once the socket is closed. */
    void awaitReadable() throws IOException {
        if (readable != null) { // a blocking socket's read waited itself
            await(readable);
        }
    }

    /**
     * Waits at most about {@code nanos} until the socket has bytes to read (non-blocking socket only): a frame begun
     * by the peer must go on arriving ({@link BulkReader}'s frame deadline). Throws once the socket is closed.
     */
    void awaitReadable(long nanos) throws IOException {
        if (readable == null) {
            return;
        }
        if (!channel.isOpen()) {
            throw new AsynchronousCloseException();
        }
        readable.select(Math.max(1, java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(nanos)));
        readable.selectedKeys().clear();
        if (!channel.isOpen()) {
            throw new AsynchronousCloseException();
        }
    }

    /** Waits until the socket takes more bytes (non-blocking socket only). Throws once the socket is closed. */
    private void awaitWritable() throws IOException {
        if (writable != null) {
            await(writable);
        }
    }

    /** Waits at most about {@code nanos} until the socket takes more bytes (non-blocking socket only). */
    void awaitWritable(long nanos) throws IOException {
        if (writable == null) {
            return;
        }
        if (!channel.isOpen()) {
            throw new AsynchronousCloseException();
        }
        writable.select(Math.max(1, java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(nanos)));
        writable.selectedKeys().clear();
        if (!channel.isOpen()) {
            throw new AsynchronousCloseException();
        }
    }

    private void await(Selector selector) throws IOException {
        if (!channel.isOpen()) {
            throw new AsynchronousCloseException();
        }
        selector.select();
        selector.selectedKeys().clear();
        if (!channel.isOpen()) {
            throw new AsynchronousCloseException();
        }
    }

    /** Wakes a reader or writer waiting for the socket (it is being closed), and frees the selectors. Any thread. */
    void closeSelectors() {
        for (Selector s : new Selector[] {readable, writable}) {
            if (s != null) {
                try {
                    s.close(); // wakes a thread in select(); its next select throws ClosedSelectorException
                } catch (IOException e) {
                    // nothing left to free
                }
            }
        }
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
