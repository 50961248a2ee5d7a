package io.nexar.transport.quic;

/** Test fixture: the counters of a {@link BulkConnection}'s writer and reader, read by tests of the bulk lanes. */
final class BulkProbes {
    private BulkProbes() {
    }

    /** Bytes of frames that senders are waiting to hand over or are handing over. */
    static long queuedBytes(BulkConnection c) {
        return c.writer().queuedBytes();
    }

    /** See {@link BulkWriter#ownWrites()}. */
    static long[] ownWrites(BulkConnection c) {
        return c.writer().ownWrites();
    }

    /** Frames whose sender went at its deadline, finished by the writer from a copy. */
    static int detachedFrames(BulkConnection c) {
        return c.writer().detachedFrames();
    }

    /** See {@link BulkReader#deliveries}. */
    static long[] deliveries(BulkConnection c) {
        return c.reader().deliveries();
    }
}
