package io.nexar;

import io.nexar.internal.comm.WireArrays;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Views of primitive arrays for the array overloads of {@link Communicator}'s collectives: the one path every
 * overload goes through (the overloads only fix the Java type). Elements are little-endian in collectives as on the
 * wire, so the byte order is {@link WireArrays}'s, as for point-to-point arrays: the array's own memory on a
 * little-endian machine, a little-endian copy otherwise, whose results {@link #back} copies into the array.
 *
 * @param segment the memory the collective works on (null for a null array where the operation allows it)
 * @param type the element type of the array
 * @param length the number of elements
 * @param array the array's own memory (the same as {@code segment} on a little-endian machine)
 * @param element the array's element layout (native order)
 */
record Arrays2(MemorySegment segment, DataType type, long length, MemorySegment array, ValueLayout element) {

    /**
     * A view of {@code array} (float[], double[], int[] or long[]).
     *
     * @param nullable true if the operation ignores this argument on some ranks (then null gives a null segment)
     * @throws IllegalArgumentException if the array is null where it is needed
     */
    static Arrays2 of(Object array, String name, boolean nullable) {
        return switch (array) {
            case null -> {
                if (!nullable) {
                    throw new IllegalArgumentException(name + " must not be null");
                }
                yield new Arrays2(null, null, 0, null, null);
            }
            case float[] a -> view(MemorySegment.ofArray(a), DataType.F32, ValueLayout.JAVA_FLOAT);
            case double[] a -> view(MemorySegment.ofArray(a), DataType.F64, ValueLayout.JAVA_DOUBLE);
            case int[] a -> view(MemorySegment.ofArray(a), DataType.I32, ValueLayout.JAVA_INT);
            case long[] a -> view(MemorySegment.ofArray(a), DataType.I64, ValueLayout.JAVA_LONG);
            default -> throw new IllegalArgumentException(name + " is a " + array.getClass().getSimpleName()
                    + ", not a float[], double[], int[] or long[]");
        };
    }

    private static Arrays2 view(MemorySegment array, DataType type, ValueLayout element) {
        return new Arrays2(WireArrays.wire(array, element), type, array.byteSize() / element.byteSize(), array,
                element);
    }

    /** Copies what the collective wrote into the array, if it worked on a copy (big-endian machines only). */
    void back() {
        if (segment != null && segment != array) {
            WireArrays.fromWire(segment, array, element, length);
        }
    }

    /** A view of a non-null array. */
    static Arrays2 of(Object array, String name) {
        return of(array, name, false);
    }

    // One generic path per collective: the overloads of Communicator only fix the array type.

    static void allReduce(ReducingCollectives c, Object data, ReduceOp op) {
        var d = of(data, "data");
        c.allReduce(d.segment, d.type, d.length, op);
        d.back();
    }

    static void broadcast(DataMovementCollectives c, Object data, int root) {
        var d = of(data, "data");
        c.broadcast(d.segment, d.type, d.length, root);
        d.back();
    }

    static void reduce(ReducingCollectives c, Object in, Object out, ReduceOp op, int root) {
        var i = of(in, "in");
        var o = of(out, "out", true);
        c.reduce(i.segment, o.segment, i.type, i.length, op, root);
        o.back();
    }

    static void allGather(DataMovementCollectives c, Object in, Object out) {
        var i = of(in, "in");
        var o = of(out, "out");
        c.allGather(i.segment, o.segment, i.type, i.length);
        o.back();
    }

    static void reduceScatter(ReducingCollectives c, Object in, Object out, ReduceOp op) {
        var o = of(out, "out");
        c.reduceScatter(of(in, "in").segment, o.segment, o.type, o.length, op);
        o.back();
    }

    static void scan(ReducingCollectives c, Object in, Object out, ReduceOp op, boolean exclusive) {
        var i = of(in, "in");
        var o = of(out, "out");
        if (exclusive) {
            c.exclusiveScan(i.segment, o.segment, i.type, i.length, op);
        } else {
            c.scan(i.segment, o.segment, i.type, i.length, op);
        }
        o.back();
    }

    static void allReduceBuckets(ReducingCollectives c, Object[] buckets, DataType type, ReduceOp op) {
        if (buckets == null) {
            throw new IllegalArgumentException("buckets must not be null");
        }
        var views = new java.util.ArrayList<Arrays2>(buckets.length);
        var segments = new java.util.ArrayList<MemorySegment>(buckets.length);
        for (int b = 0; b < buckets.length; b++) {
            views.add(of(buckets[b], "buckets[" + b + "]"));
            segments.add(views.getLast().segment);
        }
        c.allReduce(segments, type, op);
        views.forEach(Arrays2::back);
    }

    static void allReduceCompressed(ReducingCollectives c, Object data, ReduceOp op, Compressor compressor,
                                    Object residual) {
        var d = of(data, "data");
        var r = of(residual, "residual");
        if (r.length != d.length) {
            throw new IllegalArgumentException("residual has " + r.length + " elements, data has " + d.length);
        }
        c.allReduceCompressed(d.segment, d.type, d.length, op, compressor, r.segment);
        d.back();
        r.back();
    }
}
