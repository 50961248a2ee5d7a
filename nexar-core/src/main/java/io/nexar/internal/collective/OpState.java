package io.nexar.internal.collective;

import io.nexar.DataType;
import io.nexar.ErrorContext;
import io.nexar.NexarException;
import io.nexar.ReduceOp;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.ContextSource;
import io.nexar.internal.util.Deadline;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * One posted collective operation on one rank. Guarded by its communicator's shard lock ({@link CommState#lock}): the
 * driving thread opens rounds and parks until {@link #wake} (no Condition, nothing allocated per wait); transport
 * threads apply arriving chunks into the open round's slots. As a {@link BooleanSupplier} it answers "is the open round
 * done (or the operation failed)?", taking the lock: what a polling driver checks, without a lambda per round.
 */
final class OpState implements BooleanSupplier, ContextSource {
    /**
     * Chunks at least this large are copied or reduced into their target with the shard's lock released when they
     * arrive ({@link OpWrites}); smaller ones under it (a second lock round costs more than their copy).
     */
    static final long UNLOCKED_BYTES = 64 << 10;

    // Set by init at each post: a blocking call's state is reused for its communicator's next call (see recycle).
    final Group group;
    long seq;
    Fingerprint fingerprint;
    /** Built on first use ({@link #context()}): a call that succeeds never needs it. */
    private ErrorContext context;
    Schedule schedule;
    DataType type;
    ReduceOp combiner;
    final MemorySegment[] buffers = new MemorySegment[3]; // by Buf ordinal
    /** A small scratch buffer kept with this state for its reuse ({@link CallRunner}), or null; not cleared by init. */
    MemorySegment scratch;
    /** The deadline of the blocking call that last used this state, restarted by the next ({@link CallRunner}). */
    Deadline deadline;
    /**
     * The message the driver sends every chunk of this operation in, refilled per chunk ({@link ScheduleExecutor}):
     * transports encode a message before their send returns.
     */
    final Message.Collective outgoing = new Message.Collective();
    /** Its communicator's shard lock ({@link CommState#lock}), which guards this state. */
    final ReentrantLock lock;
    /** The thread waiting in {@link CollectiveEngine#awaitRound}, or null; unparked by {@link #wake}. */
    private volatile Thread driver;
    /** The open round, -1 before the first. */
    int round = -1;
    /** Receive slots of the open round by sender (communicator rank); reused from round to round. */
    final RoundSlots slots = new RoundSlots();
    /** Receives of the open round not complete yet; written under the lock, volatile for {@link #getAsBoolean}. */
    volatile int remaining;
    /** World rank of the open round's only sender, or -1 if the round receives from none or several. */
    int onlySender = -1;
    /**
     * Chunks that arrived for later rounds, kept (and counted in the engine's store) until their round opens; empty
     * (and shared) until the first, through {@link #holdLater}.
     */
    List<StoredChunk> later = List.of();
    /**
     * Receive slots of later rounds that chunks were applied to ahead of their round ({@link ReceiveAhead}), by
     * {@link #aheadKey}; null until the first. {@link #openRound} takes them over.
     */
    private AheadSlots ahead;
    /**
     * 1 if this operation may receive ahead: its input and output are distinct memory, or its schedule never reads
     * its input; 0 if not; -1 not known yet.
     */
    private int distinctBuffers = -1;
    /** Chunks being written with the lock released ({@link OpWrites}) or claimed ({@link ChunkClaim}). */
    int writers;
    /** Live claims of chunks being read ({@link OpWrites#claimSlot}); null until the first. Under the lock. */
    private List<ChunkClaim> claims;
    /** Set once, under the lock; volatile so that the driver checks it without the lock. */
    volatile NexarException failure;
    /** The failure came from another rank's abort: do not echo an abort back. */
    boolean informed;
    /** When it was posted (System.nanoTime). */
    long postedNanos;
    /** When its last round opened or a receive of it completed: its last progress (System.nanoTime). */
    long progressNanos;
    /** The round whose stall sent {@link MismatchProbe}s, -1 for none yet (driver thread, under the lock). */
    int probedRound = -1;
    /** A hang report was started for it (driver thread only). */
    boolean hangReported;
    /** The hang report, once made (docs/failure-model.md "Hang reports"); its timeout error carries it. */
    volatile String hangReport;

    OpState(Group group, ReentrantLock lock) {
        this.group = group;
        this.lock = lock;
    }

    /**
     * Makes this the operation just posted, in the state of a new one: fresh, or one that ended (successfully, on a
     * blocking call: nothing else refers to it any more) and is reused for the same communicator, so that a small
     * collective does not allocate its state anew. Under its shard's lock.
     */
    OpState init(long seq, Fingerprint fingerprint, Schedule schedule, DataType type, ReduceOp combiner,
                 MemorySegment[] buffers) {
        this.seq = seq;
        this.fingerprint = fingerprint;
        this.context = null;
        this.schedule = schedule;
        this.type = type;
        this.combiner = combiner;
        System.arraycopy(buffers, 0, this.buffers, 0, this.buffers.length);
        driver = null;
        round = -1;
        slots.clear();
        remaining = 0;
        onlySender = -1;
        later = List.of();
        if (ahead != null) {
            ahead.clear();
        }
        distinctBuffers = -1;
        failure = null;
        informed = false;
        postedNanos = System.nanoTime();
        progressNanos = postedNanos;
        hangReported = false;
        hangReport = null;
        probedRound = -1;
        return this;
    }

    /** Forgets the buffers of this ended operation (its state is kept for reuse; the caller's memory is not). */
    void release() {
        Arrays.fill(buffers, null);
        slots.forget();
    }

    /**
     * True if this operation may be reused by its communicator's next post ({@link #init}): it ended without a
     * failure and without a hang report (whose answers may still arrive for it). Its driver asks, after it ended.
     */
    boolean reusable() {
        return failure == null && !hangReported;
    }

    /**
     * The error context of this operation: its operation, rank, size, communicator and sequence number (no peer, no
     * tag), built on first use. Any thread may ask (a race builds equal contexts).
     */
    ErrorContext context() {
        ErrorContext c = context;
        if (c == null) {
            c = context = contextOf(fingerprint, group, seq);
        }
        return c;
    }

    /** {@link #context()}: the transport's sends ask for it only when they fail. */
    @Override
    public ErrorContext errorContext() {
        return context();
    }

    /**
     * The error context of operation {@code seq} of {@code group} under fingerprint {@code fp}: it names the public
     * operation the user called ({@link Fingerprint#caller}), for example grow for the broadcast that grow runs.
     */
    static ErrorContext contextOf(Fingerprint fp, Group group, long seq) {
        return new ErrorContext(fp.caller(), group.rank(), group.size(), group.id(), seq, -1, -1);
    }

    /** Keeps chunk {@code c} for its later round, in a list from {@code store} if it has none yet; true. */
    boolean holdLater(StoredChunk c, EarlyStore store) {
        if (!(later instanceof ArrayList)) {
            later = store.newList();
        }
        return later.add(c);
    }

    /**
     * True if the open round's receives are done or the operation failed. Without the lock (a polling driver asks
     * this in a loop; the volatile {@link #remaining}, written after the data it counts, orders those writes before
     * the driver's reads). Asked by the driver only.
     */
    @Override
    public boolean getAsBoolean() {
        return failure != null || remaining <= 0;
    }

    /**
     * Waits (the lock released) until {@link #wake}, at most {@code nanos}; may return early. Under the lock; the
     * caller re-checks its condition after.
     */
    void awaitProgress(long nanos) {
        driver = Thread.currentThread();
        lock.unlock();
        try {
            LockSupport.parkNanos(this, nanos);
        } finally {
            lock.lock();
            driver = null;
        }
    }

    /**
     * Parks the driver, without the lock, until {@link #wake}, at most {@code nanos}, unless the open round is done or
     * the operation failed already; may return early. Every change that makes {@link #getAsBoolean} true writes its
     * volatile field before it calls {@link #wake}, and {@link #driver} is published before the check here, so a
     * wake-up is never lost: either this check sees the change or the waker sees the driver (and an unpark before
     * the park makes it return at once). Waking takes no lock, so the woken driver does not queue for one either.
     */
    void parkDriver(long nanos) {
        driver = Thread.currentThread();
        try {
            if (!getAsBoolean()) {
                LockSupport.parkNanos(this, nanos);
            }
        } finally {
            driver = null;
        }
    }

    /**
     * Wakes the driver waiting in {@link #awaitProgress} or {@link #parkDriver}, if any (a wake-up before it parks is
     * kept).
     */
    void wake() {
        Thread t = driver;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Opens round {@code k}: one receive slot per receive step (by sender). */
    void openRound(int k, List<Step> steps) {
        round = k;
        progressNanos = System.nanoTime();
        slots.clear();
        int open = 0; // counted here, written once: the driver may read remaining without the lock
        onlySender = -1;
        int w = type.byteSize();
        for (int j = 0; j < steps.size(); j++) {
            Step s = steps.get(j);
            Slice dst;
            int peer;
            switch (s) {
                case Step.RecvInto r -> {
                    dst = r.dst();
                    peer = r.peer();
                }
                case Step.RecvReduce r -> {
                    dst = r.dst();
                    peer = r.peer();
                }
                default -> {
                    continue;
                }
            }
            Slot early = ahead == null ? null : ahead.remove(aheadKey(k, peer));
            Slot slot;
            if (early != null) {
                slot = early;
                slots.put(peer, slot);
            } else {
                slot = slots.claim(peer, s, buffers[dst.buf().ordinal()], dst.offset() * w, dst.count() * w);
            }
            if (!slot.done) {
                open++;
                onlySender = open == 1 ? group.world(peer) : -1;
            }
        }
        remaining = open;
    }

    /**
     * The slot of round {@code step}'s receive from communicator rank {@code src} if a chunk of it may be applied now,
     * before that round opens ({@link ReceiveAhead}); null if it must be held until then.
     */
    Slot aheadSlot(int src, int step) {
        if (step <= round || step >= schedule.roundCount()) {
            return null;
        }
        long key = aheadKey(step, src);
        Slot slot = ahead == null ? null : ahead.get(key);
        if (slot != null) {
            return slot;
        }
        int s = schedule.aheadStep(step, src, round);
        if (s < 0 || !distinctBuffers()) {
            return null;
        }
        Step recv = schedule.rounds().get(step).get(s);
        Slice dst = ReceiveAhead.target(recv);
        int w = type.byteSize();
        slot = new Slot(recv, buffers[dst.buf().ordinal()], dst.offset() * w, dst.count() * w);
        if (ahead == null) {
            ahead = new AheadSlots();
        }
        ahead.put(key, slot);
        return slot;
    }

    private boolean distinctBuffers() {
        if (distinctBuffers < 0) {
            MemorySegment in = buffers[Buf.INPUT.ordinal()];
            MemorySegment out = buffers[Buf.OUTPUT.ordinal()];
            distinctBuffers = in == null || out == null || in.asOverlappingSlice(out).isEmpty()
                    || !schedule.ahead().readsInput() ? 1 : 0;
        }
        return distinctBuffers == 1;
    }

    /** Drops every receive slot (the operation ended: nothing may write its buffers any more). */
    void clearSlots() {
        slots.clear();
        if (ahead != null) {
            ahead.clear();
        }
    }

    private static long aheadKey(int round, int peer) {
        return ((long) round << 32) | (peer & 0xFFFFFFFFL);
    }

    // ------------------------------------------------------------------ chunks claimed as their frame arrives

    /** Keeps a live claim of this operation (under the lock), so that {@link #cancelClaims} can stop it. */
    void addClaim(ChunkClaim claim) {
        if (claims == null) {
            claims = new ArrayList<>(2);
        }
        claims.add(claim);
    }

    /** A claim ended: no longer counted as a writer (under the lock). */
    void dropClaim(ChunkClaim claim) {
        claim.released = true;
        claims.remove(claim);
        if (--writers == 0) {
            wake(); // an ending driver may wait for it
        }
    }

    /** The operation ends: stops its claims; those writing a piece release themselves when it ends. Under the lock. */
    void cancelClaims() {
        if (claims == null) {
            return;
        }
        for (int i = claims.size() - 1; i >= 0; i--) {
            ChunkClaim claim = claims.get(i);
            if (claim.cancel()) {
                dropClaim(claim);
            }
        }
    }

    /** Waits, under the lock (released while waiting), until no chunk is written with the lock released. */
    void awaitWriters() {
        while (writers > 0) {
            awaitProgress(Long.MAX_VALUE);
        }
    }

    /** Bytes of round {@code k}'s receive from communicator rank {@code r} applied ahead of that round (0 if none). */
    long aheadReceived(int k, int r) {
        Slot early = ahead == null ? null : ahead.get(aheadKey(k, r));
        return early == null ? 0 : early.receivedBytes;
    }

    /** Fails the operation once; the driver sees it at its next check. */
    void fail(NexarException e, boolean fromAbort) {
        if (failure == null) {
            failure = e;
            informed = fromAbort;
            wake();
        }
    }

    /** Nanoseconds as seconds with one decimal, for reports. */
    static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1e9);
    }
}
