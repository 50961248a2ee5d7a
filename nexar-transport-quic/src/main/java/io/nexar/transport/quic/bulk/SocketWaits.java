package io.nexar.transport.quic.bulk;

import java.io.IOException;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * Where the reader and the writer of a {@link BulkSocket} wait for its channel, once it is non-blocking
 * ({@link #goNonBlocking}): a selector each, so that neither waits behind the other and a sender can try a write of its
 * own without waiting ({@link BulkOutput#tryWrite}). Before that the channel blocks and every wait here returns at
 * once (the blocking read or write waited itself).
 *
 * <p>Threading: {@link #goNonBlocking} runs on the setup (reader) thread before the writer thread starts; afterwards
 * the read waits belong to the reader and the write waits to the writer (or a sender holding the write turn);
 * {@link #wakeReader} and {@link #closeSelectors} may be called from any thread. Every wait throws
 * {@link AsynchronousCloseException} once the channel is closed.
 */
final class SocketWaits {
    private final SocketChannel channel;
    /** After {@link #goNonBlocking}: where the reader and the writer wait for the socket. */
    private volatile Selector readable;
    private volatile Selector writable;

    SocketWaits(SocketChannel channel) {
        this.channel = channel;
    }

    /** Makes the channel non-blocking and opens the reader's and the writer's selectors. */
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
        readable.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos)));
        readable.selectedKeys().clear();
        if (!channel.isOpen()) {
            throw new AsynchronousCloseException();
        }
    }

    /** Waits until the socket takes more bytes (non-blocking socket only). Throws once the socket is closed. */
    void awaitWritable() throws IOException {
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
        writable.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos)));
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

    /** Wakes a thread waiting in {@link #awaitReadable()}. Any thread. */
    void wakeReader() {
        Selector s = readable;
        if (s != null) {
            s.wakeup();
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
}
