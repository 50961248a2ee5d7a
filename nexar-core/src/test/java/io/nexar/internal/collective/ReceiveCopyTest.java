package io.nexar.internal.collective;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.DataType;
import io.nexar.Operation;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A collective's receive copies every byte of a small chunk into a {@code byte[]} buffer, also once C2 has compiled it
 * (issue 13; docs/performance.md, "A miscompiled small copy"). {@code MemorySegment.copy(src, off, dst, off, n)}
 * copies fewer than 64 bytes with a Java loop; once that loop's profile has seen a second destination type (here a
 * copy into a {@code double[]} now and then, as the training test's loss makes), C2 on JDK 25 compiled it so that the
 * 8-byte words at offsets 8 and 24 of a 44-byte copy into a {@code byte[]} were not written. {@code OpState.writePiece}
 * now copies through {@code Segments.copy}, which has no such loop.
 *
 * <p>The chunks are copied in a JVM of their own ({@link #main}): the fault needs the loop's profile to have seen only
 * those two destination types, which the test JVM's other tests may have changed (run in the test JVM, versions of
 * this test found the fault in 3 runs of 16). With the five-argument copy in {@code writePiece} that JVM found wrong chunks in 6 runs of 6
 * (the first between chunk 1,390 and 99,150 of 200,000); it takes about a second.
 */
@Timeout(60)
class ReceiveCopyTest {
    private static final long SEED = Long.getLong("nexar.test.seed", 42L);
    private static final int BYTES = 44;
    private static final int BLOCKS = 4;
    private static final int CHUNKS = 200_000;

    @Test
    void everyByteOfASmallChunkReachesAByteArrayBuffer() throws Exception {
        System.out.println("ReceiveCopyTest seed=" + SEED);
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), ReceiveCopyTest.class.getName(), Long.toString(SEED))
                .redirectErrorStream(true).start();
        try {
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("the copying JVM ended").isTrue(); // it prints one line
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertThat(output).as("the copying JVM (seed %d): wrong chunks, the first wrong one", SEED)
                    .isEqualTo("wrong 0 first -1");
            assertThat(p.exitValue()).isZero();
        } finally {
            p.destroyForcibly();
        }
    }

    /**
     * Copies {@link #CHUNKS} chunks through {@code writePiece} and prints {@code wrong N first I}.
     *
     * @param args the seed
     */
    public static void main(String[] args) {
        long[] result = copyChunks(new SplittableRandom(Long.parseLong(args[0])));
        System.out.println("wrong " + result[0] + " first " + result[1]);
    }

    /** Copies {@link #CHUNKS} random chunks through {@code writePiece}; returns {wrong, first wrong or -1}. */
    private static long[] copyChunks(SplittableRandom random) {
        MemorySegment frame = MemorySegment.ofArray(new byte[4096]);
        for (int i = 0; i < 20_000; i++) { // the small-copy loop gets hot on byte[] to byte[]
            MemorySegment.copy(frame, 53, MemorySegment.ofArray(new byte[BYTES * BLOCKS]), 44L * (i & 3), BYTES);
        }
        var op = new OpState(Group.world(0, BLOCKS), new ReentrantLock());
        var spec = new OpSpec(Operation.ALL_GATHER, DataType.U8, null, BYTES, -1, null, null, false);
        Schedule schedule = new RecursiveDoublingAllGather().plan(0, BLOCKS, spec);
        var fp = new Fingerprint(Operation.ALL_GATHER, DataType.U8, null, -1, BYTES);
        long wrong = 0;
        long first = -1;
        for (int i = 0; i < CHUNKS; i++) {
            if (i % 100 == 0) { // a second destination type in the loop's profile
                MemorySegment.copy(MemorySegment.ofArray(new byte[8]), 0, MemorySegment.ofArray(new double[1]), 0, 8);
            }
            byte[] chunk = new byte[BYTES];
            for (int b = 0; b < BYTES; b++) {
                chunk[b] = (byte) (1 + random.nextInt(255));
            }
            MemorySegment piece = MemorySegment.ofArray(chunk);
            MemorySegment out = MemorySegment.ofArray(new byte[BYTES * BLOCKS]);
            op.init(i, fp, schedule, DataType.U8, null, new MemorySegment[] {out, out, MemorySegment.NULL});
            long at = 44L * random.nextInt(BLOCKS);
            OpWrites.writePiece(op, new Slot(new Step.RecvInto(1, new Slice(Buf.OUTPUT, at, BYTES)), out, at, BYTES), 0,
                    piece);
            if (out.asSlice(at, BYTES).mismatch(piece) >= 0) {
                wrong++;
                if (first < 0) {
                    first = i;
                }
            }
        }
        return new long[] {wrong, first};
    }
}
