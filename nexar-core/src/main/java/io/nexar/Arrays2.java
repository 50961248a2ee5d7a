package io.nexar;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;

/**
 * Heap views of primitive arrays for the array overloads of {@link Communicator}'s collectives: the one path every
 * overload goes through (the overloads only fix the Java type).
 *
 * @param segment the array's memory (null for a null array where the operation allows it)
 * @param type the element type of the array
 * @param length the number of elements
 */
record Arrays2(MemorySegment segment, DataType type, long length) {

    /**
     * A view of {@code array} (float[], double[], int[] or long[]).
     *
     * @param nullable true if the operation ignores this argument on some ranks (then null gives a null segment)
     * @throws IllegalArgumentException if the array is null where it is needed
     */
    static Arrays2 of(Object array, String name, boolean nullable) {
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            throw new UnsupportedOperationException("array overloads of collectives need a little-endian platform;"
                    + " use the MemorySegment forms with little-endian elements");
        }
        return switch (array) {
            case null -> {
                if (!nullable) {
                    throw new IllegalArgumentException(name + " must not be null");
                }
                yield new Arrays2(null, null, 0);
            }
            case float[] a -> new Arrays2(MemorySegment.ofArray(a), DataType.F32, a.length);
            case double[] a -> new Arrays2(MemorySegment.ofArray(a), DataType.F64, a.length);
            case int[] a -> new Arrays2(MemorySegment.ofArray(a), DataType.I32, a.length);
            case long[] a -> new Arrays2(MemorySegment.ofArray(a), DataType.I64, a.length);
            default -> throw new IllegalArgumentException(name + " is a " + array.getClass().getSimpleName()
                    + ", not a float[], double[], int[] or long[]");
        };
    }

    /** A view of a non-null array. */
    static Arrays2 of(Object array, String name) {
        return of(array, name, false);
    }

    // One generic path per collective: the overloads of Communicator only fix the array type.

    static void allReduce(Communicator c, Object data, ReduceOp op) {
        var d = of(data, "data");
        c.allReduce(d.segment, d.type, d.length, op);
    }

    static void broadcast(Communicator c, Object data, int root) {
        var d = of(data, "data");
        c.broadcast(d.segment, d.type, d.length, root);
    }

    static void reduce(Communicator c, Object in, Object out, ReduceOp op, int root) {
        var i = of(in, "in");
        c.reduce(i.segment, of(out, "out", true).segment, i.type, i.length, op, root);
    }

    static void allGather(Communicator c, Object in, Object out) {
        var i = of(in, "in");
        c.allGather(i.segment, of(out, "out").segment, i.type, i.length);
    }

    static void reduceScatter(Communicator c, Object in, Object out, ReduceOp op) {
        var o = of(out, "out");
        c.reduceScatter(of(in, "in").segment, o.segment, o.type, o.length, op);
    }

    static void scan(Communicator c, Object in, Object out, ReduceOp op, boolean exclusive) {
        var i = of(in, "in");
        var o = of(out, "out");
        if (exclusive) {
            c.exclusiveScan(i.segment, o.segment, i.type, i.length, op);
        } else {
            c.scan(i.segment, o.segment, i.type, i.length, op);
        }
    }

    static void allReduceBuckets(Communicator c, Object[] buckets, DataType type, ReduceOp op) {
        if (buckets == null) {
            throw new IllegalArgumentException("buckets must not be null");
        }
        var segments = new java.util.ArrayList<MemorySegment>(buckets.length);
        for (int b = 0; b < buckets.length; b++) {
            segments.add(of(buckets[b], "buckets[" + b + "]").segment);
        }
        c.allReduce(segments, type, op);
    }

    static void allReduceCompressed(Communicator c, Object data, ReduceOp op, Compressor compressor,
                                    Object residual) {
        var d = of(data, "data");
        var r = of(residual, "residual");
        if (r.length != d.length) {
            throw new IllegalArgumentException("residual has " + r.length + " elements, data has " + d.length);
        }
        c.allReduceCompressed(d.segment, d.type, d.length, op, compressor, r.segment);
    }
}
