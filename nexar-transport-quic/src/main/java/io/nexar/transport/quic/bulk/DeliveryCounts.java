package io.nexar.transport.quic.bulk;

/**
 * Messages a {@link BulkReader} delivered, by waiting callers and by its reader thread (diagnostics and tests).
 *
 * <p>Threading: written only by the reader holding its turn, so the volatile counters have one writer; read by anyone.
 */
final class DeliveryCounts {
    /** Messages delivered by waiting callers and by the reader thread. */
    private volatile long byCallers;
    private volatile long byReader;
    /** Of those, chunks read straight into their destination ({@link PayloadStream}). */
    private volatile long streamed;

    /** Counts {@code n} delivered messages (negative: one taken back); holding the reader's turn. */
    void count(boolean byReaderThread, int n) {
        if (byReaderThread) {
            byReader += n;
        } else {
            byCallers += n;
        }
    }

    /** Counts one of the delivered messages as a chunk read straight into its destination; holding the turn. */
    void countStreamed() {
        streamed++;
    }

    /** By waiting callers ({@code [0]}), by the reader thread ({@code [1]}), of them streamed ({@code [2]}). */
    long[] snapshot() {
        return new long[] {byCallers, byReader, streamed};
    }
}
