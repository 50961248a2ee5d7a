package io.nexar.internal.p2p;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.ErrorContext;
import io.nexar.MessageSizeMismatchException;
import io.nexar.Operation;
import io.nexar.OperationCancelledException;
import io.nexar.PeerFailedException;
import io.nexar.ProtocolException;
import io.nexar.Status;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.InboundHandler.Delivery;
import io.nexar.internal.transport.PayloadSink;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Large point-to-point chunks claimed by a transport when their header is in ({@link Mailbox#claim},
 * {@link MailboxClaims}) and written into the bound receive's buffer as a reader would, piece by piece: only for a
 * receive that takes them now, with every check of the whole-frame path kept, and never written into after their
 * receive ended.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class MailboxClaimTest {
    private static final int SRC = 1;
    private final Mailbox mailbox = new Mailbox(1 << 20);

    private PendingReceive post(int tag, MemorySegment buffer) {
        return mailbox.post(0, SRC, tag, null, buffer, ErrorContext.p2p(Operation.RECV, 0, 2, 0, tag, SRC));
    }

    private static Message.Data header(int tag, long seq, long total, long offset) {
        return new Message.Data(0, tag, seq, total, offset, MemorySegment.NULL);
    }

    private static Message.Data data(int tag, long seq, long total, long offset, byte[] payload) {
        return new Message.Data(0, tag, seq, total, offset, MemorySegment.ofArray(payload));
    }

    private static byte[] bytes(int from, int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (from + i);
        }
        return b;
    }

    /** Writes {@code payload} through {@code sink} as a bulk reader does: one piece at a time, then completes it. */
    private static void stream(PayloadSink sink, byte[] payload, int pieces) {
        int step = (payload.length + pieces - 1) / pieces;
        for (int at = 0; at < payload.length; at += step) {
            piece(sink, payload, at, Math.min(step, payload.length - at));
        }
        sink.complete();
    }

    /** One piece: written, or dropped if the claim was stopped ({@link PayloadSink#begin()} refused). */
    private static boolean piece(PayloadSink sink, byte[] payload, int at, int n) {
        if (!sink.begin()) {
            return false;
        }
        try {
            MemorySegment src = MemorySegment.ofArray(payload).asSlice(at, n);
            if (sink.direct() != null) {
                MemorySegment.copy(src, 0, sink.direct(), at, n);
            } else {
                sink.accept(src, at);
            }
        } finally {
            sink.pause();
        }
        return true;
    }

    private static Throwable failure(PendingReceive r) throws InterruptedException {
        try {
            r.result().get();
            throw new AssertionError("the receive completed");
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    @Test
    void shouldWriteClaimedChunksIntoThePostedReceiveAndCompleteItWithTheLastByte() throws Exception {
        byte[] message = bytes(3, 1000);
        long[] longs = new long[125]; // no byte buffer views a long[]: the pieces come through accept
        PendingReceive r = post(5, MemorySegment.ofArray(longs));
        PayloadSink first = mailbox.claim(SRC, header(5, 0, 1000, 0), 600);
        assertThat(first).as("the pair's next message, its receive posted").isNotNull();
        assertThat(first.direct()).isNull();
        stream(first, java.util.Arrays.copyOf(message, 600), 3);
        assertThat(r.isDone()).as("400 bytes still to come").isFalse();
        PayloadSink second = mailbox.claim(SRC, header(5, 0, 1000, 600), 400);
        assertThat(second).as("a later chunk of the bound message").isNotNull();
        stream(second, java.util.Arrays.copyOfRange(message, 600, 1000), 2);
        assertThat(r.result().get()).isEqualTo(new Status(SRC, 5, 1000));
        assertThat(MemorySegment.ofArray(longs).toArray(ValueLayout.JAVA_BYTE)).isEqualTo(message);
        assertThat(mailbox.storedBytes()).isZero();
        assertThat(mailbox.storedMessages()).isZero();

        byte[] into = new byte[1000]; // a byte[]: the pieces are written into the buffer's own memory
        r = post(5, MemorySegment.ofArray(into));
        PayloadSink whole = mailbox.claim(SRC, header(5, 1, 1000, 0), 1000);
        assertThat(whole.direct()).isNotNull();
        stream(whole, message, 4);
        assertThat(r.result().get().byteSize()).isEqualTo(1000);
        assertThat(into).isEqualTo(message);
    }

    @Test
    void shouldLeaveUnexpectedAndOutOfOrderChunksToTheWholeFramePath() throws Exception {
        assertThat(mailbox.claim(SRC, header(5, 0, 100, 0), 100)).as("no receive posted").isNull();
        assertThat(mailbox.onMessage(SRC, data(5, 0, 100, 0, bytes(0, 100)))).isEqualTo(Delivery.ACCEPTED);
        assertThat(mailbox.storedBytes()).as("stored: MPI's unexpected message").isEqualTo(100);

        PendingReceive second = post(6, MemorySegment.ofArray(new byte[100]));
        assertThat(mailbox.claim(SRC, header(6, 2, 100, 0), 100)).as("message 1 has not started").isNull();
        assertThat(mailbox.onMessage(SRC, data(6, 2, 100, 0, bytes(20, 100)))).isEqualTo(Delivery.ACCEPTED);
        PendingReceive first = post(6, MemorySegment.ofArray(new byte[100]));
        PayloadSink sink = mailbox.claim(SRC, header(6, 1, 100, 0), 100);
        assertThat(sink).as("message 1 is the pair's next; the earliest posted receive takes it").isNotNull();
        stream(sink, bytes(10, 100), 1);
        assertThat(second.result().get().byteSize()).isEqualTo(100);
        assertThat(first.result().get().byteSize()).isEqualTo(100);
        byte[] got = new byte[100];
        assertThat(post(5, MemorySegment.ofArray(got)).result().get().byteSize()).isEqualTo(100);
        assertThat(got).isEqualTo(bytes(0, 100));

        assertThat(mailbox.claim(SRC, header(6, 1, 100, 0), 100)).as("message 1 again").isNull();
        assertThatThrownBy(() -> mailbox.onMessage(SRC, data(6, 1, 100, 0, bytes(0, 100))))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("sent message 1 of comm 0 again");

        PendingReceive r = post(6, MemorySegment.ofArray(new byte[100]));
        assertThat(mailbox.claim(SRC, header(6, 3, 100, 0), 60)).isNotNull(); // bytes [0, 60) are arriving
        assertThat(mailbox.claim(SRC, header(6, 3, 100, 40), 60)).as("60 + 60 bytes of a 100-byte message").isNull();
        assertThatThrownBy(() -> mailbox.onMessage(SRC, data(6, 3, 100, 40, bytes(0, 60))))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("sent bytes [40, 100) of message 3");
        assertThat(r.isDone()).isFalse();
    }

    @Test
    void shouldFailAReceiveTooSmallForTheMessageAndDropTheMessage() throws Exception {
        PendingReceive small = post(5, MemorySegment.ofArray(new byte[50]));
        assertThat(mailbox.claim(SRC, header(5, 0, 100, 0), 60)).as("no room: the whole-frame path fails it").isNull();
        assertThat(mailbox.onMessage(SRC, data(5, 0, 100, 0, bytes(0, 60)))).isEqualTo(Delivery.ACCEPTED);
        assertThat(failure(small)).isInstanceOf(MessageSizeMismatchException.class);
        assertThat(mailbox.claim(SRC, header(5, 0, 100, 60), 40)).as("the rest is dropped").isNull();
        assertThat(mailbox.onMessage(SRC, data(5, 0, 100, 60, bytes(0, 40)))).isEqualTo(Delivery.ACCEPTED);
        byte[] got = new byte[10];
        PendingReceive next = post(5, MemorySegment.ofArray(got));
        stream(mailbox.claim(SRC, header(5, 1, 10, 0), 10), bytes(7, 10), 1);
        assertThat(next.result().get().byteSize()).isEqualTo(10);
        assertThat(got).isEqualTo(bytes(7, 10));
    }

    @Test
    void shouldNotLetACancelReturnWhileAPieceIsWrittenAndDropTheRestAfterIt() throws Exception {
        byte[] buffer = new byte[300];
        PendingReceive r = post(5, MemorySegment.ofArray(buffer));
        PayloadSink sink = mailbox.claim(SRC, header(5, 0, 300, 0), 300);
        assertThat(piece(sink, bytes(1, 300), 0, 100)).isTrue();
        assertThat(sink.begin()).isTrue(); // the reader is writing the second piece
        var cancelled = new AtomicBoolean();
        Thread canceller = Thread.ofVirtual().start(() -> cancelled.set(mailbox.cancel(r)));
        while (!waitingForAPiece()) {
            Thread.onSpinWait();
        }
        assertThat(r.isDone()).as("cancel waits for the piece being written").isFalse();
        MemorySegment.copy(MemorySegment.ofArray(bytes(101, 100)), 0, sink.direct(), 100, 100);
        sink.pause();
        canceller.join();
        assertThat(cancelled).isTrue();
        assertThat(failure(r)).isInstanceOf(OperationCancelledException.class);
        assertThat(piece(sink, bytes(1, 300), 200, 100)).as("the rest of the payload is dropped").isFalse();
        sink.complete();
        assertThat(java.util.Arrays.copyOfRange(buffer, 200, 300)).containsOnly((byte) 0);

        // the pair goes on: its next message is received as usual; an idle claim is stopped at once
        PendingReceive idle = post(5, MemorySegment.ofArray(new byte[100]));
        PayloadSink other = mailbox.claim(SRC, header(5, 1, 100, 0), 100);
        assertThat(mailbox.cancel(idle)).isTrue();
        assertThat(other.begin()).isFalse();
        other.complete();
        byte[] got = new byte[100];
        PendingReceive next = post(5, MemorySegment.ofArray(got));
        assertThat(mailbox.onMessage(SRC, data(5, 2, 100, 0, bytes(9, 100)))).isEqualTo(Delivery.ACCEPTED);
        assertThat(next.result().get().byteSize()).isEqualTo(100);
        assertThat(got).isEqualTo(bytes(9, 100));
    }

    @Test
    void shouldFailStreamingReceivesWhenTheirPeerGoesDownOrTheMailboxCloses() throws Exception {
        PendingReceive r = post(5, MemorySegment.ofArray(new byte[200]));
        PayloadSink sink = mailbox.claim(SRC, header(5, 0, 200, 0), 200);
        assertThat(piece(sink, bytes(0, 200), 0, 100)).isTrue();
        mailbox.onPeerDown(SRC, "failed (test)", null);
        assertThat(failure(r)).isInstanceOf(PeerFailedException.class);
        assertThat(sink.begin()).isFalse();
        sink.abandon(); // its lane failed too
        assertThat(mailbox.claim(SRC, header(5, 1, 200, 0), 200)).as("nothing is claimed from a peer down").isNull();

        var other = new Mailbox(1 << 20);
        PendingReceive s = other.post(0, 2, 5, null, MemorySegment.ofArray(new byte[200]),
                ErrorContext.p2p(Operation.RECV, 0, 3, 0, 5, 2));
        PayloadSink claimed = other.claim(2, header(5, 0, 200, 0), 200);
        other.close("closed (test)");
        assertThat(failure(s)).hasMessageContaining("closed (test)");
        assertThat(claimed.begin()).isFalse();
        claimed.complete();
        assertThat(other.claim(2, header(5, 1, 200, 0), 200)).isNull();
    }

    /** True once a thread waits on the condition of communicator 0's shard (the canceller, for the piece written). */
    private boolean waitingForAPiece() {
        MailShard s = mailbox.shards.get(0);
        s.lock.lock();
        try {
            return s.lock.hasWaiters(s.changed);
        } finally {
            s.lock.unlock();
        }
    }
}
