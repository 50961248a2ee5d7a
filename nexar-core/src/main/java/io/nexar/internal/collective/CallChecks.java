package io.nexar.internal.collective;

import io.nexar.DataType;
import io.nexar.ReduceOp;
import io.nexar.internal.util.Checks;
import io.nexar.internal.util.Segments;
import java.lang.foreign.MemorySegment;

/**
 * The argument checks of {@link Collectives}: caller mistakes are {@link IllegalArgumentException}s naming the
 * argument and its bound, raised before anything is sent.
 */
final class CallChecks {
    private CallChecks() {
    }

    static long basic(DataType type, long count) {
        Checks.notNull("type", type);
        if (count < 0) {
            throw new IllegalArgumentException("count " + count + " is not in [0, " + Long.MAX_VALUE + "]");
        }
        return count;
    }

    static void reduction(DataType type, ReduceOp op, long count) {
        basic(type, count);
        Checks.notNull("op", op);
        Kernels.check(type, op);
    }

    /** The sum of {@code counts}, one non-negative entry per rank of a world of {@code size}. */
    static long counts(DataType type, long[] counts, String name, int size) {
        Checks.notNull("type", type);
        Checks.notNull(name, counts);
        if (counts.length != size) {
            throw new IllegalArgumentException(name + " has " + counts.length + " entries, the world has "
                    + size + " ranks");
        }
        long total = 0;
        for (int j = 0; j < counts.length; j++) {
            if (counts[j] < 0) {
                throw new IllegalArgumentException(name + "[" + j + "] " + counts[j] + " is not in [0, "
                        + Long.MAX_VALUE + "]");
            }
            total = Math.addExact(total, counts[j]);
        }
        return total;
    }

    /**
     * {@link #need} of {@code count} x {@code times} elements, described as "count N" (or "count N x world W"): built
     * only when it fails, so a call allocates no message.
     */
    static void needCount(String name, MemorySegment seg, long count, int times, DataType type) {
        Checks.notNull(name, seg);
        long bytes = Math.multiplyExact(Math.multiplyExact(count, times), type.byteSize());
        if (seg.byteSize() < bytes || seg.isReadOnly() && !"in".equals(name)) {
            need(name, seg, count * times, type, "count " + count + (times == 1 ? "" : " x world " + times));
        }
    }

    static void need(String name, MemorySegment seg, long elements, DataType type, String why) {
        Checks.notNull(name, seg);
        long bytes = Math.multiplyExact(elements, type.byteSize());
        if (seg.byteSize() < bytes) {
            throw new IllegalArgumentException(name + " holds " + seg.byteSize() + " bytes but needs " + bytes
                    + " (" + why + " of " + type + ")");
        }
        if (seg.isReadOnly() && !"in".equals(name)) {
            throw new IllegalArgumentException(name + " is read-only");
        }
    }

    /** Refuses a buffer of an async call that other threads cannot access; {@code name} (or null) ends the message. */
    static void needShared(MemorySegment seg, String name) {
        if (!Segments.shared(seg)) {
            throw new IllegalArgumentException("async collectives need buffers that other threads can access"
                    + " (heap, global, auto or shared arena segments), not a confined arena's"
                    + (name == null ? "" : ": " + name));
        }
    }
}
