package io.nexar.internal.collective;

/**
 * Splits {@code count} elements into {@code parts} contiguous blocks of whole elements: every block has
 * {@code count / parts} elements and the first {@code count % parts} blocks one more. Both ends of a transfer compute
 * the same layout from the same numbers, so they always agree on sizes (docs/design.md W1).
 *
 * @param count elements in all, {@code >= 0}
 * @param parts number of blocks, {@code >= 1}
 */
public record ChunkLayout(long count, int parts) {
    public ChunkLayout {
        if (count < 0 || parts < 1) {
            throw new IllegalArgumentException("layout of " + count + " elements in " + parts + " parts");
        }
    }

    /** The layout of {@code count} elements in {@code parts} blocks. */
    public static ChunkLayout of(long count, int parts) {
        return new ChunkLayout(count, parts);
    }

    /** First element of block {@code i}. */
    public long offset(int i) {
        long base = count / parts;
        long extra = count % parts;
        return i * base + Math.min(i, extra);
    }

    /** Elements in block {@code i}. */
    public long size(int i) {
        return count / parts + (i < count % parts ? 1 : 0);
    }

    /** Block {@code i} as a slice of {@code buf}, whose first element is {@code base}. */
    public Slice slice(Buf buf, long base, int i) {
        return new Slice(buf, base + offset(i), size(i));
    }

    /** Block {@code i} as a slice of {@code buf}. */
    public Slice slice(Buf buf, int i) {
        return slice(buf, 0, i);
    }
}
