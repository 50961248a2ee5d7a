package io.nexar.benchmarks;

import io.nexar.DataType;
import io.nexar.ReduceOp;
import io.nexar.internal.reduce.Reducer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The reduction kernels ({@link Reducer#reduce}, in place: {@code acc[i] = op(acc[i], in[i])}) per type and operator,
 * against {@link MemorySegment#copy} of the same number of bytes. Both buffers are off-heap and 64-byte aligned, as
 * the collective engine's are. GB/s = {@code bytes / (ns/op)}; docs/benchmarks.md has the table.
 *
 * <pre>
 * java -jar nexar-benchmarks/target/benchmarks.jar ReduceBenchmark -f 1 -wi 2 -i 3 -w 1s -r 1s
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ReduceBenchmark {
    /** Buffer size in bytes: 1 MiB fits the L2 cache of most machines, 16 MiB does not. */
    @Param({"1048576"})
    public int bytes;

    /** Element type. */
    @Param({"F32", "F64", "I32", "I64", "I8", "F16", "BF16"})
    public DataType type;

    /** Operator. */
    @Param({"SUM", "MAX"})
    public ReduceOp op;

    private Arena arena;
    private MemorySegment acc;
    private MemorySegment in;
    private long count;

    /** Allocates and fills both buffers (with zeros, so sums never overflow or turn denormal). */
    @Setup
    public void setUp() {
        arena = Arena.ofShared();
        acc = arena.allocate(bytes, 64);
        in = arena.allocate(bytes, 64);
        count = bytes / type.byteSize();
    }

    /** Frees the buffers. */
    @TearDown
    public void tearDown() {
        arena.close();
    }

    /** One kernel call over the whole buffer. */
    @Benchmark
    public void reduce() {
        Reducer.reduce(acc, 0, in, 0, count, type, op);
    }

    /** The baseline: copying the same number of bytes. */
    @Benchmark
    public void copy() {
        MemorySegment.copy(in, 0, acc, 0, bytes);
    }
}
