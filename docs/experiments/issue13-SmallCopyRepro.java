import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;

/**
 * Issue 13: C2 on JDK 25 (seen on Temurin 25.0.3, x86-64) compiles the small-copy loop of
 * {@code MemorySegment.copy(src, srcOffset, dst, dstOffset, bytes)} (under 64 bytes: a Java loop of 8-byte accesses in
 * {@code jdk.internal.foreign.SegmentBulkOperations.copy}) so that, in a 44-byte copy between two {@code byte[]}
 * segments, the 8-byte words at offsets 8 and 24 are not written, once that loop's profile has seen a second
 * destination type (here a {@code double[]}, one copy in 100). No nexar code involved.
 *
 * <pre>
 *   javac -d out issue13-SmallCopyRepro.java &amp;&amp; java -cp out SmallCopyRepro
 * </pre>
 *
 * (the source launcher, {@code java issue13-SmallCopyRepro.java}, did not show it). Prints the first bad copies and
 * {@code FAILED: n bad copies}, or {@code OK}. Runs at 14:41 UTC on a loaded 2-core machine: FAILED in 3 of 4 runs as
 * is (the first bad copy at 8,819-27,803) and with {@code -XX:-UseSuperWord}; OK with {@code -XX:LoopUnrollLimit=0},
 * {@code -XX:-LoopUnswitching}, {@code -XX:TypeProfileWidth=1} or {@code -XX:TieredStopAtLevel=1} (one run each).
 */
class SmallCopyRepro {
    /** Where a chunk goes, as in a collective's receive slot. */
    static final class Slot {
        Object step;
        MemorySegment target;
        long offset;
    }

    static int elementBytes = 1;

    /** Copies or reduces {@code piece} into the slot, shaped like nexar's {@code OpState.writePiece}. */
    static void write(Slot slot, long at, MemorySegment piece) {
        long len = piece.byteSize();
        if (slot.step instanceof Integer operand) {
            long n = len / elementBytes;
            reduce(slot.target, operand == 0 ? slot.offset + at : operand * elementBytes + at, piece, n);
        } else {
            MemorySegment.copy(piece, 0, slot.target, slot.offset + at, len);
        }
    }

    static void reduce(MemorySegment dst, long offset, MemorySegment src, long n) {
        for (long i = 0; i < n; i++) {
            byte sum = (byte) (dst.get(ValueLayout.JAVA_BYTE, offset + i) + src.get(ValueLayout.JAVA_BYTE, i));
            dst.set(ValueLayout.JAVA_BYTE, offset + i, sum);
        }
    }

    public static void main(String[] args) {
        MemorySegment frame = MemorySegment.ofArray(new byte[4096]);
        for (int i = 0; i < 20_000; i++) {
            MemorySegment.copy(frame, 53, MemorySegment.ofArray(new byte[176]), 44L * (i & 3), 44);
        }
        var random = new SplittableRandom(42);
        int bad = 0;
        for (int i = 0; i < 200_000; i++) {
            if (i % 100 == 0) {
                MemorySegment.copy(MemorySegment.ofArray(new byte[8]), 0, MemorySegment.ofArray(new double[1]), 0, 8);
            }
            byte[] chunk = new byte[44];
            for (int b = 0; b < chunk.length; b++) {
                chunk[b] = (byte) (1 + random.nextInt(255));
            }
            MemorySegment piece = MemorySegment.ofArray(chunk);
            Slot slot = new Slot();
            slot.step = "receive";
            slot.target = MemorySegment.ofArray(new byte[176]);
            slot.offset = 44L * random.nextInt(4);
            write(slot, 0, piece);
            long differs = slot.target.asSlice(slot.offset, 44).mismatch(piece);
            if (differs >= 0 && bad++ < 3) {
                System.out.println("copy " + i + " differs from byte " + differs);
            }
        }
        System.out.println(bad == 0 ? "OK" : "FAILED: " + bad + " bad copies");
    }
}
