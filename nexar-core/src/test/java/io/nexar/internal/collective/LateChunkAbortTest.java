package io.nexar.internal.collective;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.DataType;
import io.nexar.Operation;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.ContextSource;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.Deadline;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A chunk that proves a mismatch after its operation ended here is answered with MISMATCH aborts sent by a virtual
 * thread. Transports refill one message per lane with the next chunk as soon as a delivery returns (the bulk lane's
 * reader, the in-process transport), so the abort must carry the sequence number read during the delivery, not
 * whatever the message holds when the virtual thread runs (it named a later operation, which then failed on peers
 * that had done nothing wrong, and a 4-rank test hung for its 20 s timeout).
 */
@Timeout(10)
class LateChunkAbortTest {
    private static final Fingerprint BARRIER = new Fingerprint(Operation.BARRIER, DataType.U8, null, -1, 0);

    @Test
    void theAbortNamesTheOperationOfTheChunkEvenWhenTheMessageIsRefilledAtOnce() throws Exception {
        var engine = new CollectiveEngine(1 << 20);
        var aborts = new LinkedBlockingQueue<Message.CollectiveAbort>();
        engine.abortsThrough(new AbortRecorder(aborts));
        long seq = completeBarrier(engine);

        // rank 1's late probe of that barrier, with another root: a mismatch found after it returned here
        var reused = new Message.Collective().set(0, seq, MismatchProbe.STEP, BARRIER.operationCode(),
                BARRIER.typeCode(), BARRIER.opCode(), 1, BARRIER.count(), 0, 0, MemorySegment.ofArray(new byte[0]));
        // Every carrier of the virtual-thread scheduler is kept busy, so the abort's virtual thread cannot start
        // before the message is refilled: the order the race took in the hung test, made certain.
        int carriers = Integer.getInteger("jdk.virtualThreadScheduler.parallelism",
                Runtime.getRuntime().availableProcessors());
        var started = new CountDownLatch(carriers);
        var release = new AtomicBoolean();
        for (int i = 0; i < carriers; i++) {
            Thread.ofVirtual().start(() -> {
                started.countDown();
                while (!release.get()) {
                    Thread.onSpinWait(); // spins: never gives its carrier back
                }
            });
        }
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        try {
            engine.onMessage(1, reused);
            reused.set(0, seq + 7, 0, BARRIER.operationCode(), BARRIER.typeCode(), BARRIER.opCode(), -1,
                    BARRIER.count(), 0, 0, MemorySegment.ofArray(new byte[0])); // the transport's next chunk
        } finally {
            release.set(true);
        }

        Message.CollectiveAbort abort = aborts.poll(5, TimeUnit.SECONDS);
        assertThat(abort).as("a MISMATCH abort to rank 1").isNotNull();
        assertThat(abort.opSeq()).isEqualTo(seq);
    }

    /** Posts a 2-rank barrier, completes it with rank 1's chunk and ends it here; returns its sequence number. */
    private static long completeBarrier(CollectiveEngine engine) throws InterruptedException {
        var spec = new OpSpec(Operation.BARRIER, DataType.U8, null, 0, -1, null, null, false);
        Schedule schedule = new DisseminationBarrier().plan(0, 2, spec);
        OpState op = engine.post(Group.world(0, 2), BARRIER, schedule, DataType.U8, null,
                new MemorySegment[] {MemorySegment.NULL, MemorySegment.NULL, MemorySegment.NULL});
        engine.open(op, 0, schedule.rounds().get(0));
        engine.onMessage(1, new Message.Collective(0, op.seq, 0, BARRIER.operationCode(), BARRIER.typeCode(),
                BARRIER.opCode(), -1, BARRIER.count(), 0, 0, MemorySegment.ofArray(new byte[0])));
        assertThat(engine.awaitRound(op, System.nanoTime() + TimeUnit.SECONDS.toNanos(5))).isTrue();
        assertThat(engine.failure(op)).isNull();
        engine.end(op);
        return op.seq;
    }

    /** Rank 0 of 2; records the aborts it is asked to send. */
    private record AbortRecorder(BlockingQueue<Message.CollectiveAbort> aborts) implements Transport {
        @Override
        public int rank() {
            return 0;
        }

        @Override
        public int worldSize() {
            return 2;
        }

        @Override
        public void send(int peer, Lane lane, Message message, Deadline deadline, ContextSource context) {
            if (message instanceof Message.CollectiveAbort a) {
                aborts.add(a);
            }
        }

        @Override
        public void exclude(int peer, String why) {
        }

        @Override
        public void close() {
        }
    }
}
