package io.nexar.internal.collective;

import static io.nexar.internal.collective.CallChecks.reduction;

import io.nexar.DataType;
import io.nexar.Operation;
import io.nexar.ReduceOp;
import io.nexar.internal.util.Checks;
import io.nexar.internal.util.Segments;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

/**
 * The bucketed allReduce of one {@link Collectives}: checks the buckets, and reduces them as one operation through a
 * staging buffer that is kept for the next call (see {@link Collectives#allReduce(List, DataType, ReduceOp)}).
 *
 * <p>Threading: any thread; a call takes the cached staging buffer atomically (a concurrent call makes its own).
 */
final class BucketedAllReduce {
    /** Largest staging buffer of bucketed allReduce kept between calls. */
    private static final long MAX_CACHED_STAGING_BYTES = 256L << 20;

    private final CallRunner runner;
    /** The staging buffer of bucketed allReduce, kept for the next call; null while a call uses it. */
    private final AtomicReference<MemorySegment> staging = new AtomicReference<>();

    BucketedAllReduce(CallRunner runner) {
        this.runner = runner;
    }

    /**
     * Checks the arguments of a bucketed allReduce and returns the element count of each bucket.
     *
     * @throws IllegalArgumentException naming the bucket that is null, read-only or not whole elements
     */
    static long[] counts(List<MemorySegment> buckets, DataType type, ReduceOp op) {
        Checks.notNull("buckets", buckets);
        reduction(type, op, 0);
        int w = type.byteSize();
        long[] counts = new long[buckets.size()];
        long total = 0;
        for (int b = 0; b < counts.length; b++) {
            MemorySegment seg = buckets.get(b);
            Checks.notNull("buckets[" + b + "]", seg);
            if (seg.byteSize() % w != 0) {
                throw new IllegalArgumentException("buckets[" + b + "] holds " + seg.byteSize() + " bytes, not a"
                        + " whole number of " + type + " elements (" + w + " bytes each)");
            }
            if (seg.isReadOnly()) {
                throw new IllegalArgumentException("buckets[" + b + "] is read-only");
            }
            counts[b] = seg.byteSize() / w;
            total = Math.addExact(total, counts[b]);
        }
        return counts;
    }

    /**
     * The call that reduces {@code segs} (two or more checked buckets of {@code counts} elements) in place.
     *
     * @param labelled labels the fingerprint with the public operation the collectives run for, if any
     */
    CollectiveCall call(MemorySegment[] segs, long[] counts, DataType type, ReduceOp op,
                        UnaryOperator<Fingerprint> labelled) {
        long total = 0;
        for (long c : counts) {
            total += c; // checked by counts()
        }
        long bytes = Math.multiplyExact(total, type.byteSize());
        MemorySegment staging = takeStaging(bytes);
        long at = 0;
        for (MemorySegment seg : segs) {
            Segments.copy(seg, 0, staging, at, seg.byteSize());
            at += seg.byteSize();
        }
        var fp = new Fingerprint(Operation.ALL_REDUCE, type, op, Fingerprint.bucketLayout(counts), total);
        var spec = new OpSpec(Operation.ALL_REDUCE, type, op, total, -1, null, null, true);
        return new CollectiveCall(runner, spec, labelled.apply(fp), staging, staging, null, (seq, failure) -> {
            try {
                if (failure == null) {
                    long from = 0;
                    for (MemorySegment seg : segs) {
                        Segments.copy(staging, from, seg, 0, seg.byteSize());
                        from += seg.byteSize();
                    }
                }
            } finally {
                returnStaging(staging);
            }
        }, segs, "buckets");
    }

    /** The staging buffer of bucketed allReduce: the cached one if it is free and large enough, else a new one. */
    private MemorySegment takeStaging(long bytes) {
        MemorySegment s = staging.getAndSet(null);
        if (s == null || s.byteSize() < bytes) {
            s = Segments.heapBytes(Math.max(bytes, 8));
        }
        return s.asSlice(0, bytes);
    }

    private void returnStaging(MemorySegment s) {
        if (s.byteSize() <= MAX_CACHED_STAGING_BYTES) {
            // the whole array again: asSlice views share it, and a later, larger call may need all of it
            staging.set(MemorySegment.ofArray((byte[]) s.heapBase().orElseThrow()));
        }
    }
}
