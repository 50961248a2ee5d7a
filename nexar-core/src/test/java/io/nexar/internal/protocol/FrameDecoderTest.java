package io.nexar.internal.protocol;

import static io.nexar.internal.protocol.MessageCodecTest.assertSameMessage;
import static io.nexar.internal.protocol.MessageCodecTest.detach;
import static io.nexar.internal.protocol.MessageCodecTest.fixture;
import static io.nexar.internal.protocol.MessageCodecTest.fixtures;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nexar.ProtocolException;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class FrameDecoderTest {

    private static final int PEER = 3;
    private static final long MAX = 16L << 20;

    /** Every golden frame, back to back, and the messages they carry. */
    private static final byte[] STREAM;
    private static final List<Message> EXPECTED;

    static {
        var out = new ByteArrayOutputStream();
        var expected = new ArrayList<Message>();
        for (var f : fixtures()) {
            out.writeBytes(f.bytes());
            expected.add(f.message());
        }
        STREAM = out.toByteArray();
        EXPECTED = List.copyOf(expected);
    }

    /** Collects detached copies: a Data payload is valid only during the callback. */
    private final List<Message> received = new ArrayList<>();

    private void collect(Message m) {
        received.add(detach(m));
    }

    private void assertReceivedAll() {
        assertEquals(EXPECTED.size(), received.size(), "messages received");
        for (int i = 0; i < EXPECTED.size(); i++) {
            assertSameMessage(EXPECTED.get(i), received.get(i));
        }
    }

    private static ByteBuffer slice(byte[] bytes, int from, int to) {
        return ByteBuffer.wrap(bytes, from, to - from);
    }

    @Test
    @Timeout(10)
    void severalFramesInOneBufferAreDecodedInOrderWithoutBuffering() {
        var decoder = new FrameDecoder(PEER, MAX);
        ByteBuffer in = ByteBuffer.wrap(STREAM);
        decoder.feed(in, this::collect);
        assertReceivedAll();
        assertFalse(in.hasRemaining());
        assertEquals(0, decoder.bufferedBytes());
        assertEquals(FrameDecoder.INITIAL_CAPACITY, decoder.bufferCapacity());
    }

    @Test
    @Timeout(30)
    void framesSplitAtEveryPairOfByteBoundariesReassemble() {
        var decoder = new FrameDecoder(PEER, MAX);
        for (int i = 0; i <= STREAM.length; i++) {
            for (int j = i; j <= STREAM.length; j++) {
                received.clear();
                decoder.feed(slice(STREAM, 0, i), this::collect);
                decoder.feed(slice(STREAM, i, j), this::collect);
                decoder.feed(slice(STREAM, j, STREAM.length), this::collect);
                assertEquals(0, decoder.bufferedBytes(), "split at " + i + " and " + j);
                assertReceivedAll();
            }
        }
    }

    @Test
    @Timeout(10)
    void byteByByteDirectAndReadOnlyInputsReassemble() {
        var decoder = new FrameDecoder(PEER, MAX);
        for (byte b : STREAM) {
            ByteBuffer one = ByteBuffer.allocateDirect(1).put(b).flip();
            decoder.feed(one, this::collect);
            assertFalse(one.hasRemaining());
        }
        assertReceivedAll();
        received.clear();
        ByteBuffer direct = ByteBuffer.allocateDirect(STREAM.length).put(STREAM).flip();
        decoder.feed(direct.asReadOnlyBuffer(), this::collect);
        assertReceivedAll();
    }

    @Test
    @Timeout(10)
    void payloadIsReadableDuringTheCallbackWhenTheFrameWasAccumulated() {
        byte[] frame = fixture("data").bytes();
        var decoder = new FrameDecoder(PEER, MAX);
        var payloads = new ArrayList<byte[]>();
        decoder.feed(slice(frame, 0, 10), m -> payloads.add(null));
        decoder.feed(slice(frame, 10, frame.length),
                m -> payloads.add(((Message.Data) m).payload().toArray(ValueLayout.JAVA_BYTE)));
        assertEquals(1, payloads.size());
        assertArrayEquals(new byte[] {(byte) 0xde, (byte) 0xad, (byte) 0xbe, (byte) 0xef, 0x01}, payloads.get(0));
    }

    @Test
    @Timeout(10)
    void allOnesLengthIsRefusedNamingBothNumbers() {
        var decoder = new FrameDecoder(PEER, MAX);
        byte[] claim = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x10, 0x00};
        assertThatThrownBy(() -> decoder.feed(ByteBuffer.wrap(claim), this::collect))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("frame of 4294967295 bytes from rank 3 exceeds the maximum of 16777216 bytes");
    }

    @Test
    @Timeout(10)
    void maxPlusOneIsRefusedEvenWhenThePrefixArrivesByteByByte() {
        var decoder = new FrameDecoder(PEER, MAX);
        byte[] claim = new byte[4];
        MemorySegment.ofArray(claim).set(WireFormat.INT_LE, 0, (int) MAX + 1);
        decoder.feed(slice(claim, 0, 1), this::collect);
        decoder.feed(slice(claim, 1, 2), this::collect);
        decoder.feed(slice(claim, 2, 3), this::collect);
        var e = assertThrows(ProtocolException.class, () -> decoder.feed(slice(claim, 3, 4), this::collect));
        assertThat(e).hasMessageContaining("frame of 16777217 bytes from rank 3 exceeds the maximum of 16777216");
        assertEquals(PEER, e.peer().orElseThrow());
        assertEquals(FrameDecoder.INITIAL_CAPACITY, decoder.bufferCapacity());
    }

    @Test
    @Timeout(10)
    void exactlyMaxIsAccepted() {
        int payload = 1000;
        var decoder = new FrameDecoder(PEER, WireFormat.DATA_HEADER_BYTES - WireFormat.LENGTH_PREFIX_BYTES + payload);
        byte[] frame = MessageCodecTest.encode(new Message.Data(1, 1, 0, payload, 0,
                MemorySegment.ofArray(new byte[payload])));
        decoder.feed(ByteBuffer.wrap(frame), this::collect);
        assertEquals(1, received.size());
    }

    @Test
    @Timeout(10)
    void aHugeClaimAllocatesNothingBeforeTheCheck() {
        var tiny = new FrameDecoder(PEER, 64);
        byte[] claim = {0x00, 0x00, 0x00, 0x40, 0x10, 0x00, 0x00}; // 1 GiB claimed against a 64-byte maximum
        assertThatThrownBy(() -> tiny.feed(ByteBuffer.wrap(claim), this::collect))
                .hasMessageContaining("frame of 1073741824 bytes from rank 3 exceeds the maximum of 64 bytes");
        assertEquals(FrameDecoder.INITIAL_CAPACITY, tiny.bufferCapacity());
    }

    @Test
    @Timeout(10)
    void anAcceptedClaimGrowsTheBufferOnlyWithTheBytesThatArrive() {
        var decoder = new FrameDecoder(PEER, 1L << 30);
        byte[] start = new byte[WireFormat.DATA_HEADER_BYTES + 100];
        MemorySegment.ofArray(start).set(WireFormat.INT_LE, 0, 1 << 30); // a legal 1 GiB Data frame
        start[WireFormat.TYPE_OFFSET] = (byte) MessageType.DATA.code();
        decoder.feed(ByteBuffer.wrap(start), this::collect);
        assertEquals(start.length, decoder.bufferedBytes());
        assertThat(decoder.bufferCapacity()).isLessThanOrEqualTo(2 * start.length);
        assertTrue(received.isEmpty());
    }

    @Test
    @Timeout(10)
    void theAccumulationBufferIsReused() {
        byte[] frame = MessageCodecTest.encode(new Message.Data(0, 9, 0, 5000, 0,
                MemorySegment.ofArray(new byte[5000])));
        var decoder = new FrameDecoder(PEER, MAX);
        decoder.feed(slice(frame, 0, 100), this::collect);
        decoder.feed(slice(frame, 100, frame.length), this::collect);
        int capacity = decoder.bufferCapacity();
        assertThat(capacity).isBetween(frame.length, 2 * frame.length);
        for (int i = 0; i < 3; i++) {
            decoder.feed(slice(frame, 0, 2000), this::collect);
            decoder.feed(slice(frame, 2000, frame.length), this::collect);
        }
        assertEquals(capacity, decoder.bufferCapacity());
        assertEquals(4, received.size());
    }

    @Test
    @Timeout(10)
    void lengthsBelowTheHeaderAreRefused() {
        for (int length = 0; length < WireFormat.MIN_FRAME_LENGTH; length++) {
            var decoder = new FrameDecoder(PEER, MAX);
            byte[] frame = {(byte) length, 0, 0, 0, 0x20, 0};
            assertThatThrownBy(() -> decoder.feed(ByteBuffer.wrap(frame), this::collect))
                    .isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("frame of " + length + " bytes from rank 3 is shorter than");
        }
    }

    @Test
    @Timeout(10)
    void afterAnErrorEveryFeedThrowsTheSameException() {
        byte[] bad = fixture("hello").bytes().clone();
        bad[WireFormat.TYPE_OFFSET] = 0x2a;
        var decoder = new FrameDecoder(PEER, MAX);
        decoder.feed(slice(bad, 0, 5), this::collect);
        var first = assertThrows(ProtocolException.class,
                () -> decoder.feed(slice(bad, 5, bad.length), this::collect));
        assertThat(first).hasMessageContaining("unknown message type 0x2a from rank 3");
        assertTrue(decoder.isFailed());
        assertSame(first, assertThrows(ProtocolException.class,
                () -> decoder.feed(ByteBuffer.wrap(STREAM), this::collect)));
        assertSame(first, assertThrows(ProtocolException.class,
                () -> decoder.feed(ByteBuffer.allocate(0), this::collect)));
        assertTrue(received.isEmpty());
    }

    @Test
    @Timeout(10)
    void aFailingConsumerLeavesTheDecoderUsable() {
        var decoder = new FrameDecoder(PEER, MAX);
        ByteBuffer in = ByteBuffer.wrap(STREAM);
        assertThrows(IllegalStateException.class, () -> decoder.feed(in, m -> {
            throw new IllegalStateException("consumer failed");
        }));
        assertEquals(fixtures().get(0).bytes().length, in.position());
        assertFalse(decoder.isFailed());
        decoder.feed(in, this::collect);
        assertEquals(EXPECTED.size() - 1, received.size());
    }

    @Test
    @Timeout(10)
    void feedingFromTheConsumerIsRefused() {
        var decoder = new FrameDecoder(PEER, MAX);
        assertThrows(IllegalStateException.class, () -> decoder.feed(ByteBuffer.wrap(STREAM),
                m -> decoder.feed(ByteBuffer.wrap(STREAM), this::collect)));
    }

    @Test
    @Timeout(10)
    void anUnknownPeerIsNamedAsSuchAndLimitsAreChecked() {
        var decoder = new FrameDecoder(-1, 64);
        assertThatThrownBy(() -> decoder.feed(ByteBuffer.wrap(new byte[] {(byte) 0xff, 0, 0, 0}), this::collect))
                .hasMessageContaining("frame of 255 bytes from an unidentified peer exceeds the maximum of 64 bytes");
        assertThrows(IllegalArgumentException.class, () -> new FrameDecoder(0, 1));
        assertThrows(IllegalArgumentException.class,
                () -> new FrameDecoder(0, FrameDecoder.MAX_SUPPORTED_FRAME_BYTES + 1));
        assertEquals(FrameDecoder.MAX_SUPPORTED_FRAME_BYTES,
                new FrameDecoder(0, FrameDecoder.MAX_SUPPORTED_FRAME_BYTES).maxFrameBytes());
    }
}
