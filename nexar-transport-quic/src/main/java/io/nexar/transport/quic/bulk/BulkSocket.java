package io.nexar.transport.quic.bulk;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
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
 * each ({@link SocketWaits}), and a sender can try to write its own small frame without ever blocking on the socket
 * ({@link BulkOutput#tryWrite}). This class runs the handshake and reads; {@link #output()} writes.
 *
 * <pre>
 *  writer thread ({@link BulkOutput})              reader thread (here)
 *  fill(srcs): plaintext -> out (wrap or copy)     readFully(dst): in -> dst (unwrap or read)
 *  flush():    out -> socket, one write per        spill: what a read or record brought beyond dst,
 *              up to OUT_BYTES (about 30 records)  kept for the next readFully
 * </pre>
 *
 * <p><b>Copies.</b> Sending: see {@link BulkOutput} (the payload is read once, by the cipher or by one copy).
 * Receiving, records are decrypted into the caller's frame buffer itself (plaintext beyond the frame goes to
 * {@code spill}); plain reads go straight into it.
 *
 * <p><b>Threading.</b> {@link #handshake} runs alone; afterwards {@link #readFully} and {@link #readAvailable} belong
 * to one thread and {@link #output()} to another. The {@link SSLEngine} serialises its own wrap and unwrap calls.
 */
final class BulkSocket {
    /** Bytes one socket read may bring. */
    private static final int IN_BYTES = 512 << 10;

    private final SocketChannel channel;
    private final SSLEngine engine;
    private final SocketWaits waits;
    private final BulkOutput output;
    /** TLS only: records read from the socket, not yet decrypted (direct for a native engine). */
    private final ByteBuffer in;
    private ByteBuffer spill;
    /** The last socket read took less than it had room for: the socket had nothing more at that moment. */
    private boolean drained;
    private final ByteBuffer[] scatter = new ByteBuffer[2];

    /**
     * @param engine the TLS engine, in client or server mode, or null for plain TCP
     * @param direct true to give the TLS engine direct buffers (a native engine), false for heap buffers (the JDK's)
     */
    BulkSocket(SocketChannel channel, SSLEngine engine, boolean direct) {
        this.channel = channel;
        this.engine = engine;
        this.waits = new SocketWaits(channel);
        this.output = new BulkOutput(channel, engine, direct, waits);
        if (engine == null) {
            in = null;
            spill = ByteBuffer.allocateDirect(64 << 10).flip();
        } else {
            int packet = engine.getSession().getPacketBufferSize();
            int inBytes = Math.max(IN_BYTES, 2 * packet);
            in = (direct ? ByteBuffer.allocateDirect(inBytes) : ByteBuffer.allocate(inBytes)).flip();
            spill = ByteBuffer.allocateDirect(engine.getSession().getApplicationBufferSize()).flip();
        }
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

    /** The writing side: one writer at a time (see {@link BulkWriter}). */
    BulkOutput output() {
        return output;
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
        ByteBuffer out = output.newOutBuffer();
        while (true) {
            switch (hs) {
                case NEED_WRAP -> {
                    SSLEngineResult r = engine.wrap(BulkOutput.NOTHING, out);
                    output.flush(out);
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
                    runTasks(engine);
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

    /** Runs the engine's delegated tasks on this thread. */
    static void runTasks(SSLEngine engine) {
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
        int room = in.remaining();
        int n;
        try {
            n = channel.read(in);
        } finally {
            in.flip();
        }
        drained = n >= 0 && n < room;
        return n < 0 ? -2 : n;
    }

    /**
     * True if the last socket read took less than it had room for (so the socket had nothing more then) and nothing
     * readable waits here (no plaintext left over, no whole TLS record): another read at once would almost surely
     * find nothing. A poll that has just delivered a frame stops here instead of paying that read (one system call of
     * the few a small collective makes per rank; docs/performance.md).
     */
    boolean drainedAtLastRead() {
        return drained && !spill.hasRemaining() && (engine == null || !holdsWholeRecord(in));
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
            waits.awaitReadable();
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
        long room = dst.remaining() + (long) spill.remaining();
        try {
            long n = channel.read(scatter);
            drained = n >= 0 && n < room;
            return n;
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
            runTasks(engine);
        }
        if (engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP) {
            output.wantWrap(); // a post-handshake message (key update) to answer: the writer does
        }
        return r;
    }

    /** Reads more TLS bytes from the socket into {@code in}; false at the end of the stream. */
    private boolean readMore() throws IOException {
        in.compact();
        try {
            int n;
            while ((n = channel.read(in)) == 0 && in.hasRemaining()) {
                waits.awaitReadable();
            }
            return n >= 0;
        } finally {
            in.flip();
        }
    }

    /** True if the reader saw a post-handshake message that needs an answer: the writer should fill. */
    boolean wrapWanted() {
        return output.wrapWanted();
    }

    // ------------------------------------------------------------------ waiting (see SocketWaits)

    /** After setup, on the setup (reader) thread before the writer thread starts: see {@link SocketWaits}. */
    void goNonBlocking() throws IOException {
        waits.goNonBlocking();
    }

    /** Waits until the socket has bytes to read (non-blocking socket only). Throws once the socket is closed. */
    void awaitReadable() throws IOException {
        waits.awaitReadable();
    }

    /** See {@link SocketWaits#awaitReadable(long)}. */
    void awaitReadable(long nanos) throws IOException {
        waits.awaitReadable(nanos);
    }

    /** Wakes a thread waiting in {@link #awaitReadable()}. Any thread. */
    void wakeReader() {
        waits.wakeReader();
    }

    /** Wakes a reader or writer waiting for the socket (it is being closed), and frees the selectors. Any thread. */
    void closeSelectors() {
        waits.closeSelectors();
    }
}
