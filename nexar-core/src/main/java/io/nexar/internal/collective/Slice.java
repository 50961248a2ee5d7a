package io.nexar.internal.collective;

/**
 * A run of whole elements of one buffer: {@code count} elements starting at element {@code offset}. Sizes are in
 * elements, never bytes, so a slice can never split an element (docs/design.md W1).
 *
 * @param buf which buffer
 * @param offset first element, {@code >= 0}
 * @param count number of elements, {@code >= 0}
 */
public record Slice(Buf buf, long offset, long count) {
    public Slice {
        if (offset < 0 || count < 0) {
            throw new IllegalArgumentException("slice offset " + offset + " and count " + count + " must be >= 0");
        }
    }

    /** The end (exclusive), in elements. */
    public long end() {
        return offset + count;
    }

    /** True if both slices share at least one element. */
    public boolean overlaps(Slice other) {
        return buf == other.buf && count > 0 && other.count > 0 && offset < other.end() && other.offset < end();
    }

    /** The sub-slice of {@code n} elements starting {@code from} elements into this one. */
    public Slice sub(long from, long n) {
        if (from < 0 || n < 0 || from + n > count) {
            throw new IllegalArgumentException("sub-slice [" + from + ", " + (from + n) + ") of a slice of " + count);
        }
        return new Slice(buf, offset + from, n);
    }

    /** As a record's equals, written out: compared per received chunk ({@code Step.RecvReduce.accumulates}). */
    @Override
    public boolean equals(Object o) {
        return o instanceof Slice s && buf == s.buf && offset == s.offset && count == s.count;
    }

    @Override
    public int hashCode() {
        return 31 * (31 * buf.hashCode() + Long.hashCode(offset)) + Long.hashCode(count);
    }
}
