package io.nexar.internal.collective;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.DataType;
import io.nexar.Operation;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.InboundHandler.Delivery;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.transport.Progress;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A large chunk of an operation not posted yet stays with the transport (the engine answers FULL) instead of being
 * copied into the early store, and goes straight into its target once the operation is posted (issue 13, "no staging
 * of expected data"). Small chunks, and transports nobody polls, store at once as before.
 */
@Timeout(10)
class DeferralsTest {
    private static final int BYTES = 64 << 10;

    /** A transport whose waiting callers poll (what enables deferral); nothing to read here. */
    private static final Progress POLLED = new Progress() {
        @Override
        public boolean poll(Lane lane) {
            return false;
        }

        @Override
        public void handBack(Lane lane) {
        }

        @Override
        public long pollNanos() {
            return 1_000;
        }
    };

    /** Rank 0 of 2 posts a broadcast of {@code bytes} from root 1 into {@code out}. */
    private static OpState postBroadcast(CollectiveEngine engine, MemorySegment out, int bytes) {
        var spec = new OpSpec(Operation.BROADCAST, DataType.U8, null, bytes, 1, null, null, false);
        Schedule schedule = new BinomialBroadcast().plan(0, 2, spec);
        var fp = new Fingerprint(Operation.BROADCAST, DataType.U8, null, 1, bytes);
        return engine.post(Group.world(0, 2), fp, schedule, DataType.U8, null, new MemorySegment[] {out, out, MemorySegment.NULL});
    }

    /** Root 1's whole broadcast of {@code bytes}, each byte 7, as one chunk of step 0 of operation 0. */
    private static Message.Collective chunk(int bytes) {
        MemorySegment payload = Arena.ofAuto().allocate(bytes);
        payload.fill((byte) 7);
        var fp = new Fingerprint(Operation.BROADCAST, DataType.U8, null, 1, bytes);
        return new Message.Collective(0, 0, 0, fp.operationCode(), fp.typeCode(), fp.opCode(), 1, bytes, bytes, 0,
                payload);
    }

    @Test
    void aLargeChunkOfAnOperationNotPostedYetWaitsForItInsteadOfBeingCopied() {
        var engine = new CollectiveEngine(1 << 30);
        engine.drivenBy(POLLED);
        Message.Collective c = chunk(BYTES);

        assertThat(engine.onMessage(1, c)).isEqualTo(Delivery.FULL);
        assertThat(engine.storedBytes()).isZero();

        MemorySegment out = Arena.ofAuto().allocate(BYTES);
        postBroadcast(engine, out, BYTES);
        assertThat(engine.onMessage(1, c)).isEqualTo(Delivery.ACCEPTED);
        assertThat(engine.storedBytes()).isZero();
        assertThat(out.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 7);
        assertThat(out.get(ValueLayout.JAVA_BYTE, BYTES - 1)).isEqualTo((byte) 7);
    }

    @Test
    void smallAndVeryLargeChunksAndUnpolledTransportsStoreAtOnce() {
        var polled = new CollectiveEngine(1 << 30);
        polled.drivenBy(POLLED);
        assertThat(polled.onMessage(1, chunk(64))).isEqualTo(Delivery.ACCEPTED);
        assertThat(polled.storedBytes()).isEqualTo(64);

        int large = (int) Deferrals.MAX_BYTES + 1;
        assertThat(polled.onMessage(1, chunk(large))).isEqualTo(Delivery.ACCEPTED); // a round ahead: copy at once
        assertThat(polled.storedBytes()).isEqualTo(64 + large);

        var unpolled = new CollectiveEngine(1 << 30);
        assertThat(unpolled.onMessage(1, chunk(BYTES))).isEqualTo(Delivery.ACCEPTED);
        assertThat(unpolled.storedBytes()).isEqualTo(BYTES);
    }

    @Test
    void aDeferredChunkIsStoredOnceItsWindowHasPassed() {
        var d = new Deferrals();
        Message.Collective c = chunk(BYTES);
        long t0 = 1_000_000_000L;
        assertThat(d.defer(1, c, t0)).isTrue();
        assertThat(d.any()).isTrue();
        assertThat(d.nextExpiry(t0)).isEqualTo(t0 + Deferrals.WINDOW_NANOS);
        assertThat(d.defer(1, c, t0 + Deferrals.WINDOW_NANOS - 1)).isTrue();
        assertThat(d.defer(1, c, t0 + Deferrals.WINDOW_NANOS)).isFalse(); // store it now
        assertThat(d.any()).isFalse();
        assertThat(d.nextExpiry(t0)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aWindowPassedWithoutAnOfferDoesNotMakeWaitersSpin() {
        var d = new Deferrals();
        long t0 = 5_000_000_000L;
        d.defer(1, chunk(BYTES), t0);
        assertThat(d.nextExpiry(t0 + Deferrals.WINDOW_NANOS)).isEqualTo(Long.MAX_VALUE);
        d.taken(1); // the peer went down: its transport dropped the chunk
        assertThat(d.any()).isFalse();
    }
}
