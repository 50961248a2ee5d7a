package io.nexar.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nexar.ProtocolException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzz targets (Jazzer) for every decoder of the core that reads bytes from another process: the frame decoder, the
 * message codec (every message type, RPC included), the enrolment bodies, and the compressed-allReduce payload.
 *
 * <p>A plain {@code mvn verify} replays the seed corpus under {@code src/test/resources/io/nexar/internal/protocol/
 * ProtocolFuzzTestInputs/<method>/} (built from the golden fixtures by {@code scripts/fuzz-seeds.sh}, plus the
 * inputs of findings kept as regression seeds); {@code scripts/fuzz.sh SECONDS} fuzzes each target (docs/testing.md).
 *
 * <p>Each target checks the decoder's contract: only {@link ProtocolException} comes out (for
 * {@link SparsePayload#problem}, nothing: it reports in words); what it returns is no larger than the configured
 * maximum (for the codec: re-encoding a decoded frame gives back exactly its bytes, so nothing was read past the
 * frame or allocated beyond it); and, through {@code @Timeout} (libFuzzer's {@code -timeout} when fuzzing), no
 * input takes more than 10 s.
 */
@Timeout(10)
class ProtocolFuzzTest {

    /** Receiver limit of the frame targets: small, so that the oversize paths are reached as well. */
    static final long MAX_FRAME_BYTES = 4096;
    private static final int PEER = 3;
    /** The codes of the enrolment messages (0x40-0x4F), ascending. */
    private static final int[] ENROLMENT_CODES = Arrays.stream(MessageType.values()).mapToInt(MessageType::code)
            .filter(c -> c >= 0x40 && c <= 0x4F).sorted().toArray();

    @FuzzTest
    void messageCodec(byte[] data) {
        decodeAndCheck(data);
    }

    /**
     * The enrolment bodies (JOIN_*, PEER_TABLE, ELASTIC_JOIN_REQUEST, GROW_POLL, ADMISSION, SEED_PROOF, RENEW_REQUEST,
     * RENEWED: every {@link MessageType} of the enrolment range 0x40-0x4F): the type byte is mapped onto one of them, so
     * that every input reaches {@link EnrolmentCodec} and the codecs of its families.
     */
    @FuzzTest
    void enrolmentCodec(byte[] data) {
        if (data.length > WireFormat.TYPE_OFFSET) {
            int code = data[WireFormat.TYPE_OFFSET] & 0xFF;
            boolean enrolment = Arrays.binarySearch(ENROLMENT_CODES, code) >= 0;
            data[WireFormat.TYPE_OFFSET] = (byte) (enrolment ? code : ENROLMENT_CODES[code % ENROLMENT_CODES.length]);
        }
        decodeAndCheck(data);
    }

    /**
     * The stream decoder: the input is fed whole and, to a second decoder, in pieces of 1 to 16 bytes; both must
     * deliver the same messages and fail alike, the accumulation buffer never exceeds {@code 4 + maxFrameBytes}, and a
     * failed decoder refuses further input with the same {@link ProtocolException}.
     */
    @FuzzTest
    void frameDecoder(byte[] data) {
        var whole = new Run();
        whole.feed(data, data.length);
        var pieces = new Run();
        pieces.feed(data, 1 + (data.length == 0 ? 0 : data[0] & 15));
        assertThat(pieces.frames).as("frames delivered in pieces").isEqualTo(whole.frames);
        assertThat(pieces.failure == null).as("failure in pieces").isEqualTo(whole.failure == null);
        if (whole.failure != null) {
            assertThat(whole.decoder.isFailed()).isTrue();
            assertThatThrownBy(() -> whole.decoder.feed(ByteBuffer.allocate(1), m -> { }))
                    .isSameAs(whole.failure);
        }
    }

    /**
     * The compressed-allReduce block check. Input: {@code [selector u8][count u32 LE][payload...]}; the selector picks
     * the element size (2, 4 or 8 bytes) and whether the receiver expects the k the payload states or another one.
     * {@link SparsePayload#problem} must never throw; when it accepts, every index and value it vouches for lies
     * inside the payload and inside {@code [0, count)}, strictly ascending.
     */
    @FuzzTest
    void sparsePayload(byte[] data) {
        if (data.length < 5) {
            return;
        }
        int selector = data[0] & 0xFF;
        int w = new int[] {2, 4, 8}[selector % 3];
        long count = Integer.toUnsignedLong(ByteBuffer.wrap(data, 1, 4).order(ByteOrder.LITTLE_ENDIAN).getInt());
        var payload = MemorySegment.ofArray(Arrays.copyOfRange(data, 5, data.length));
        long statedK = payload.byteSize() >= 4 ? Integer.toUnsignedLong(payload.get(WireFormat.INT_LE, 0)) : 0;
        long expectedK = (selector & 0x80) == 0 ? statedK : statedK + (selector & 0x7F) - 64;
        String problem = SparsePayload.problem(payload, count, expectedK, w);
        if (problem != null) {
            assertThat(problem).isNotBlank();
            return;
        }
        assertThat(payload.byteSize()).isEqualTo(SparsePayload.bytes(expectedK, w));
        long previous = -1;
        for (long j = 0; j < expectedK; j++) {
            long i = SparsePayload.index(payload, j);
            assertThat(i).isGreaterThan(previous).isLessThan(count);
            previous = i;
            assertThat(SparsePayload.valueOffset(expectedK, j, w) + w).isLessThanOrEqualTo(payload.byteSize());
        }
    }

    /**
     * A bulk reader's frame memory, larger than any frame and reused for every input, and the message it decodes
     * collective frames into: the reader's path ({@link #decodeAsReader}) keeps payload views of same-sized frames.
     */
    private static final MemorySegment READER_MEMORY = MemorySegment.ofArray(new byte[(int) MAX_FRAME_BYTES + 64]);
    private static final Message.Collective READER_MESSAGE = new Message.Collective();

    /**
     * Decodes one frame; a success must re-encode to exactly the input (nothing invented, nothing beyond it), and the
     * reader's path must come to the same result.
     */
    private static void decodeAndCheck(byte[] data) {
        Message m;
        try {
            m = MessageCodec.decode(PEER, MemorySegment.ofArray(data), MAX_FRAME_BYTES);
        } catch (ProtocolException e) {
            assertThat(e.getMessage()).isNotBlank();
            assertThatThrownBy(() -> decodeAsReader(data)).as("the reader's path").isInstanceOf(ProtocolException.class);
            return;
        }
        assertThat(MessageCodec.encodedSize(m)).as("encoded size of %s", m.type()).isEqualTo(data.length)
                .isLessThanOrEqualTo(WireFormat.LENGTH_PREFIX_BYTES + MAX_FRAME_BYTES);
        assertThat(encode(m)).as("re-encoded %s", m.type()).isEqualTo(data);
        Message r = decodeAsReader(data);
        assertThat(r instanceof Message.Collective).isEqualTo(m instanceof Message.Collective);
        assertThat(encode(r)).as("re-encoded %s from the reader's path", r.type()).isEqualTo(data);
    }

    /** Decodes {@code data} as a bulk reader does: from the start of memory longer than the frame, stale bytes after. */
    private static Message decodeAsReader(byte[] data) {
        MemorySegment memory = data.length + 16 <= READER_MEMORY.byteSize() ? READER_MEMORY
                : MemorySegment.ofArray(new byte[data.length + 16]);
        memory.fill((byte) 0x5A);
        MemorySegment.copy(MemorySegment.ofArray(data), 0, memory, 0, data.length);
        return MessageCodec.decode(PEER, memory, data.length, MAX_FRAME_BYTES, READER_MESSAGE);
    }

    private static byte[] encode(Message m) {
        byte[] out = new byte[Math.toIntExact(MessageCodec.encodedSize(m))];
        MessageCodec.encode(m, MemorySegment.ofArray(out));
        return out;
    }

    /** One decoder fed the input in pieces of at most {@code piece} bytes, recording what it delivers. */
    private static final class Run {
        final FrameDecoder decoder = new FrameDecoder(PEER, MAX_FRAME_BYTES);
        final List<List<Byte>> frames = new ArrayList<>();
        ProtocolException failure;

        void feed(byte[] data, int piece) {
            try {
                for (int at = 0; at < data.length; at += piece) {
                    var in = ByteBuffer.wrap(data, at, Math.min(piece, data.length - at));
                    decoder.feed(in, m -> {
                        byte[] frame = encode(m); // a payload is valid only during the callback: copy it now
                        assertThat((long) frame.length)
                                .isLessThanOrEqualTo(WireFormat.LENGTH_PREFIX_BYTES + MAX_FRAME_BYTES);
                        frames.add(toList(frame));
                    });
                    assertThat(in.hasRemaining()).isFalse();
                    assertThat((long) decoder.bufferCapacity())
                            .isLessThanOrEqualTo(WireFormat.LENGTH_PREFIX_BYTES + MAX_FRAME_BYTES);
                }
            } catch (ProtocolException e) {
                failure = e;
            }
        }

        private static List<Byte> toList(byte[] b) {
            var list = new ArrayList<Byte>(b.length);
            for (byte x : b) {
                list.add(x);
            }
            return list;
        }
    }
}
