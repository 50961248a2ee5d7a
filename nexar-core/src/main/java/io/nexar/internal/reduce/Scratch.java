package io.nexar.internal.reduce;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Two primitive arrays per element kind that the kernels copy one chunk of each operand into. Instances are pooled
 * so a reduction allocates nothing once the pool is warm, on platform and virtual threads alike (a
 * {@code ThreadLocal} would allocate per virtual thread). Arrays are created lazily, per kind, at {@link #CHUNK}
 * elements, so an instance that only ever served F32 holds 8 KiB.
 *
 * <p>Not thread-safe: an instance belongs to one caller between {@link #acquire()} and {@link #release}.
 */
final class Scratch {
    /**
     * Elements per chunk: operands of one chunk (at most 3 x 8 KiB for 64-bit types) stay in L1, and the per-chunk
     * cost (three bulk copies, one switch) is amortised over enough elements.
     */
    static final int CHUNK = 1024;

    /** Pool slots; when every slot is taken, callers get a fresh instance and the surplus is dropped on release. */
    private static final AtomicReferenceArray<Scratch> POOL =
            new AtomicReferenceArray<>(Math.min(64, 2 * Runtime.getRuntime().availableProcessors()));

    private byte[] bytesX;
    private byte[] bytesY;
    private short[] shortsX;
    private short[] shortsY;
    private int[] intsX;
    private int[] intsY;
    private long[] longsX;
    private long[] longsY;
    private float[] floatsX;
    private float[] floatsY;
    private double[] doublesX;
    private double[] doublesY;

    private Scratch() {
    }

    /** Takes an instance from the pool, or creates one. Pair with {@link #release} in a {@code finally}. */
    static Scratch acquire() {
        int slots = POOL.length();
        int start = (int) (Thread.currentThread().threadId() % slots);
        for (int k = 0; k < slots; k++) {
            int i = (start + k) % slots;
            Scratch s = POOL.getPlain(i);
            if (s != null && POOL.compareAndSet(i, s, null)) {
                return s;
            }
        }
        return new Scratch();
    }

    /** Returns {@code s} to the pool; drops it if the pool is full. */
    static void release(Scratch s) {
        int slots = POOL.length();
        int start = (int) (Thread.currentThread().threadId() % slots);
        for (int k = 0; k < slots; k++) {
            int i = (start + k) % slots;
            if (POOL.getPlain(i) == null && POOL.compareAndSet(i, null, s)) {
                return;
            }
        }
    }

    byte[] bytesX() {
        return bytesX != null ? bytesX : (bytesX = new byte[CHUNK]);
    }

    byte[] bytesY() {
        return bytesY != null ? bytesY : (bytesY = new byte[CHUNK]);
    }

    short[] shortsX() {
        return shortsX != null ? shortsX : (shortsX = new short[CHUNK]);
    }

    short[] shortsY() {
        return shortsY != null ? shortsY : (shortsY = new short[CHUNK]);
    }

    int[] intsX() {
        return intsX != null ? intsX : (intsX = new int[CHUNK]);
    }

    int[] intsY() {
        return intsY != null ? intsY : (intsY = new int[CHUNK]);
    }

    long[] longsX() {
        return longsX != null ? longsX : (longsX = new long[CHUNK]);
    }

    long[] longsY() {
        return longsY != null ? longsY : (longsY = new long[CHUNK]);
    }

    float[] floatsX() {
        return floatsX != null ? floatsX : (floatsX = new float[CHUNK]);
    }

    float[] floatsY() {
        return floatsY != null ? floatsY : (floatsY = new float[CHUNK]);
    }

    double[] doublesX() {
        return doublesX != null ? doublesX : (doublesX = new double[CHUNK]);
    }

    double[] doublesY() {
        return doublesY != null ? doublesY : (doublesY = new double[CHUNK]);
    }
}
