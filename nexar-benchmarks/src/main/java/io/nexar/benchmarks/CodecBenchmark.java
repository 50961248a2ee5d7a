package io.nexar.benchmarks;

import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
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
 * {@link MessageCodec} on Data frames: encoding a message into a reused buffer (the payload is copied once) and
 * decoding a frame (the payload is a slice, not a copy). Run with {@code -prof gc} to see the allocation per frame.
 *
 * <pre>
 * java -jar nexar-benchmarks/target/benchmarks.jar CodecBenchmark -f 1 -wi 2 -i 3 -w 1s -r 1s -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CodecBenchmark {
    /** Payload size in bytes. */
    @Param({"8", "65536"})
    public int payloadBytes;

    private Arena arena;
    private Message.Data message;
    private MemorySegment buffer;
    private MemorySegment frame;

    /** Builds one message and its encoded frame. */
    @Setup
    public void setUp() {
        arena = Arena.ofShared();
        MemorySegment payload = arena.allocate(payloadBytes, 64);
        message = new Message.Data(0, 7, 42, payloadBytes, 0, payload);
        buffer = arena.allocate(MessageCodec.encodedSize(message), 64);
        long size = MessageCodec.encode(message, buffer);
        frame = arena.allocate(size, 64);
        MemorySegment.copy(buffer, 0, frame, 0, size);
    }

    /** Frees the buffers. */
    @TearDown
    public void tearDown() {
        arena.close();
    }

    /** Encodes the message into the reused buffer; returns the frame size. */
    @Benchmark
    public long encode() {
        return MessageCodec.encode(message, buffer);
    }

    /** Decodes the frame. */
    @Benchmark
    public Message decode() {
        return MessageCodec.decode(1, frame, 1 << 30);
    }
}
