package io.nexar.transport.quic.bulk;

import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;

/**
 * Test fixture: what the transport's tests (in the package above) read of a {@link BulkConnection} and its endpoint
 * that the bulk-lane package keeps to itself: the writer's and reader's counters, the endpoint's threads and limits.
 */
public final class BulkProbes {
    /** See {@link BulkEndpoint#ACCEPT_SETUP}: how long an accepted connection may take to be set up. */
    public static final Duration ACCEPT_SETUP = BulkEndpoint.ACCEPT_SETUP;
    /** See {@link BulkReader#STREAM_MIN_BYTES}: chunks at least this large are read straight into their destination. */
    public static final int STREAM_MIN_BYTES = BulkReader.STREAM_MIN_BYTES;

    private BulkProbes() {
    }

    /** Bytes of frames that senders are waiting to hand over or are handing over. */
    public static long queuedBytes(BulkConnection c) {
        return c.writer().queuedBytes();
    }

    /** See {@link BulkWriter#ownWrites()}. */
    public static long[] ownWrites(BulkConnection c) {
        return c.writer().ownWrites();
    }

    /** Frames whose sender went at its deadline, finished by the writer from a copy. */
    public static int detachedFrames(BulkConnection c) {
        return c.writer().detachedFrames();
    }

    /** See {@link BulkReader#deliveries}. */
    public static long[] deliveries(BulkConnection c) {
        return c.reader().deliveries();
    }

    /** The endpoint {@code c} belongs to. */
    public static BulkEndpoint endpoint(BulkConnection c) {
        return c.endpoint();
    }

    /** See {@link BulkEndpoint#liveThreads()}. */
    public static List<Thread> liveThreads(BulkEndpoint e) {
        return e.liveThreads();
    }

    /** See {@link BulkEndpoint#pendingAcceptLimit}. */
    public static int pendingAcceptLimit(int worldSize) {
        return BulkEndpoint.pendingAcceptLimit(worldSize);
    }

    /** {@code c}'s socket channel, for writing raw bytes past its writer (plain TCP only). */
    public static SocketChannel channel(BulkConnection c) {
        return c.socket().channel();
    }

    /** Closes {@code c}'s socket under it, as a cut cable would (its threads then see the failure). */
    public static void closeSocket(BulkConnection c) {
        c.closeSocket();
    }
}
