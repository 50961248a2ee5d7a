package io.nexar.internal.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.nexar.ErrorCode;
import io.nexar.ProtocolException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden bytes, round trips, truncations, corruptions and fuzzing of {@link MessageCodec}. Property tests are seeded
 * by jqwik, which prints the seed of every run in its report (rerun a failure with {@code @Property(seed = "...")}).
 */
class MessageCodecTest {

    static final int PEER = 3;
    static final long MAX = 1 << 20;

    /** A golden frame: the message, and its bytes from src/test/resources/protocol/NAME.hex. */
    record Fixture(String name, Message message, byte[] bytes) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Fixture> fixtures() {
        return List.of(
                fixture("hello", new Message.Hello(WireFormat.VERSION, 3, 4, 0x0123456789ABCDEFL)),
                fixture("data", new Message.Data(2, 7, 5, 16, 8, segment(0xde, 0xad, 0xbe, 0xef, 0x01))),
                fixture("data-empty", new Message.Data(0, 0, 0, 0, 0, MemorySegment.ofArray(new byte[0]))),
                fixture("heartbeat", new Message.Heartbeat(42, 0x0102030405060708L)),
                fixture("goodbye", new Message.Goodbye(GoodbyeReason.FAILURE, "bye \u00e9")),
                fixture("collective", new Message.Collective(2, 17, 3, 1, 3, 1, -1, 1024, 4096, 8,
                        segment(0xde, 0xad, 0xbe, 0xef))),
                fixture("collective-abort", new Message.CollectiveAbort(0, 5, AbortReason.MISMATCH, 2, -1, "count")),
                fixture("status-question", new Message.Status(false, 7, new int[0], "")),
                fixture("status-answer", new Message.Status(true, 7, new int[] {3}, "idle")),
                fixture("rpc-request", new Message.RpcRequest(2, 9, 7, 1_000_000_000L,
                        segment('p', 'i', 'n', 'g'))),
                fixture("rpc-response", new Message.RpcResponse(9, RpcStatus.OK, null, "", "",
                        segment('p', 'o', 'n', 'g'))),
                fixture("rpc-response-failed", new Message.RpcResponse(9, RpcStatus.FAILED,
                        ErrorCode.FAILED_PRECONDITION, "java.lang.IllegalStateException", "boom",
                        MemorySegment.ofArray(new byte[0]))),
                fixture("rpc-cancel", new Message.RpcCancel(9)),
                fixture("relay", new Message.Relay(0, 2, 1, 5, segment(0x0a, 0, 0, 0, 0x32, 0, 9, 0, 0, 0, 0, 0, 0, 0))),
                fixture("peer-down", new Message.PeerDown(3, "gone")),
                fixture("quiesce", new Message.Quiesce(true)));
    }

    static Fixture fixture(String name) {
        return fixtures().stream().filter(f -> f.name().equals(name)).findFirst().orElseThrow();
    }

    private static Fixture fixture(String name, Message message) {
        String resource = "/protocol/" + name + ".hex";
        try (InputStream in = MessageCodecTest.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + resource);
            }
            String hex = new String(in.readAllBytes(), StandardCharsets.UTF_8).replaceAll("#[^\n]*", "")
                    .replaceAll("\\s+", "");
            return new Fixture(name, message, HexFormat.of().parseHex(hex));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static MemorySegment segment(int... bytes) {
        byte[] b = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            b[i] = (byte) bytes[i];
        }
        return MemorySegment.ofArray(b);
    }

    /** Records compare by value except Data, whose payload segments compare by content. */
    static void assertSameMessage(Message expected, Message actual) {
        if (expected instanceof Message.Collective e && actual instanceof Message.Collective a) {
            assertEquals(e.payload().byteSize(), a.payload().byteSize(), "payload size");
            assertArrayEquals(e.payload().toArray(ValueLayout.JAVA_BYTE), a.payload().toArray(ValueLayout.JAVA_BYTE),
                    "payload");
            assertEquals(detach(e).toString().replaceAll("payload=.*", ""),
                    detach(a).toString().replaceAll("payload=.*", ""), "header fields");
        } else if (expected instanceof Message.Data e && actual instanceof Message.Data a) {
            assertEquals(e.communicator(), a.communicator(), "communicator");
            assertEquals(e.tag(), a.tag(), "tag");
            assertEquals(e.messageSeq(), a.messageSeq(), "messageSeq");
            assertEquals(e.totalBytes(), a.totalBytes(), "totalBytes");
            assertEquals(e.offset(), a.offset(), "offset");
            assertArrayEquals(e.payload().toArray(ValueLayout.JAVA_BYTE), a.payload().toArray(ValueLayout.JAVA_BYTE),
                    "payload");
        } else if (expected instanceof Message.Relay e && actual instanceof Message.Relay a) {
            assertArrayEquals(e.frame().toArray(ValueLayout.JAVA_BYTE), a.frame().toArray(ValueLayout.JAVA_BYTE),
                    "inner frame");
            assertEquals(e.toString().replaceAll("frame=.*", ""), a.toString().replaceAll("frame=.*", ""),
                    "header fields");
        } else if (expected instanceof Message.RpcRequest e && actual instanceof Message.RpcRequest a) {
            assertArrayEquals(e.payload().toArray(ValueLayout.JAVA_BYTE), a.payload().toArray(ValueLayout.JAVA_BYTE),
                    "payload");
            assertEquals(e.toString().replaceAll("payload=.*", ""), a.toString().replaceAll("payload=.*", ""),
                    "header fields");
        } else if (expected instanceof Message.RpcResponse e && actual instanceof Message.RpcResponse a) {
            assertArrayEquals(e.payload().toArray(ValueLayout.JAVA_BYTE), a.payload().toArray(ValueLayout.JAVA_BYTE),
                    "payload");
            assertEquals(e.toString().replaceAll("payload=.*", ""), a.toString().replaceAll("payload=.*", ""),
                    "header fields");
        } else if (expected instanceof Message.Status e && actual instanceof Message.Status a) {
            assertEquals(e.reply(), a.reply(), "reply");
            assertEquals(e.requestId(), a.requestId(), "requestId");
            assertArrayEquals(e.waitingFor(), a.waitingFor(), "waitingFor");
            assertEquals(e.text(), a.text(), "text");
        } else {
            assertEquals(expected, actual);
        }
    }

    /** A copy of {@code m} that does not reference decoder or frame memory, for use after a callback returns. */
    static Message detach(Message m) {
        return switch (m) {
            case Message.Data d -> new Message.Data(d.communicator(), d.tag(), d.messageSeq(), d.totalBytes(),
                    d.offset(), copy(d.payload()));
            case Message.Collective c -> new Message.Collective(c.communicator(), c.opSeq(), c.step(), c.operation(),
                    c.dataType(), c.reduceOp(), c.root(), c.count(), c.totalBytes(), c.offset(), copy(c.payload()));
            case Message.RpcRequest r -> new Message.RpcRequest(r.communicator(), r.requestId(), r.functionId(),
                    r.timeoutNanos(), copy(r.payload()));
            case Message.RpcResponse r -> new Message.RpcResponse(r.requestId(), r.status(), r.code(),
                    r.remoteClass(), r.detail(), copy(r.payload()));
            default -> m;
        };
    }

    private static MemorySegment copy(MemorySegment s) {
        return MemorySegment.ofArray(s.toArray(ValueLayout.JAVA_BYTE));
    }

    static byte[] encode(Message m) {
        byte[] out = new byte[Math.toIntExact(MessageCodec.encodedSize(m))];
        assertEquals(out.length, MessageCodec.encode(m, MemorySegment.ofArray(out)));
        return out;
    }

    static Message decode(byte[] frame) {
        return MessageCodec.decode(PEER, MemorySegment.ofArray(frame), MAX);
    }

    // ---------------------------------------------------------------- golden bytes

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    @Timeout(10)
    void encodesToGoldenBytes(Fixture f) {
        assertEquals(f.bytes().length, MessageCodec.encodedSize(f.message()));
        assertEquals(HexFormat.of().formatHex(f.bytes()), HexFormat.of().formatHex(encode(f.message())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    @Timeout(10)
    void decodesGoldenBytes(Fixture f) {
        assertSameMessage(f.message(), decode(f.bytes()));
    }

    /**
     * A bulk reader decodes every collective frame into one message from one frame memory: each decode shows that
     * frame's fields and bytes (a payload view kept for a same-sized frame shows the new bytes), a frame of another
     * type is a message of its own, and a malformed collective frame is refused.
     */
    @Test
    @Timeout(10)
    void decodesCollectiveFramesIntoOneReusedMessage() {
        var memory = MemorySegment.ofArray(new byte[256]);
        var into = new Message.Collective();
        List<Message> frames = List.of(
                new Message.Collective(2, 17, 3, 1, 3, 1, -1, 1024, 4096, 8, segment(0xde, 0xad, 0xbe, 0xef)),
                new Message.Collective(2, 18, 0, 1, 3, 1, -1, 1024, 4096, 12, segment(1, 2, 3, 4)),
                new Message.Heartbeat(1, 2),
                new Message.Collective(5, 19, 1, 2, 3, 0, 0, 2, 8, 0, segment(9, 8, 7, 6, 5, 4, 3, 2)),
                new Message.Collective(5, 20, 1, 2, 3, 0, 0, 0, 0, 0, segment()));
        MemorySegment firstPayload = null;
        for (int i = 0; i < frames.size(); i++) {
            Message m = frames.get(i);
            memory.fill((byte) 0x77); // what the frame does not cover is stale
            long size = MessageCodec.encode(m, memory);
            Message d = MessageCodec.decode(5, memory, size, 4096, into);
            assertSameMessage(m, d);
            if (m instanceof Message.Collective) {
                assertSame(into, d, "frame " + i);
            }
            if (i == 0) {
                firstPayload = into.payload();
            } else if (i == 1) {
                assertSame(firstPayload, into.payload(), "the same view for a same-sized payload at the same place");
            }
        }
        memory.fill((byte) 0);
        long size = MessageCodec.encode(frames.getFirst(), memory);
        memory.set(WireFormat.LONG_LE, WireFormat.COLLECTIVE_CHUNK_OFFSET_OFFSET, 4094); // past totalBytes
        assertThatThrownBy(() -> MessageCodec.decode(5, memory, size, 4096, into))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("runs past totalBytes");
    }

    /** The header of a payload-carrying frame is the whole frame's first bytes, its length counting the payload. */
    @Test
    void encodeHeaderWritesTheFramesHeaderWithoutThePayload() {
        for (Message m : List.of(
                new Message.Collective(2, 17, 3, 1, 3, 1, -1, 1024, 4096, 8, segment(0xde, 0xad, 0xbe, 0xef)),
                new Message.Data(1, 7, 3, 4, 0, segment(1, 2, 3, 4)))) {
            long size = MessageCodec.encodedSize(m);
            var whole = MemorySegment.ofArray(new byte[(int) size]);
            MessageCodec.encode(m, whole);
            var header = MemorySegment.ofArray(new byte[64]);
            long n = MessageCodec.encodeHeader(m, header);
            assertEquals(size - 4, n, m.type() + " header bytes");
            assertArrayEquals(whole.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE),
                    header.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), m.type() + " header");
            assertThat(header.asSlice(n).toArray(ValueLayout.JAVA_BYTE)).as("after the header").containsOnly(0);
        }
        var hb = new Message.Heartbeat(1, 2);
        var out = MemorySegment.ofArray(new byte[64]);
        assertEquals(MessageCodec.encodedSize(hb), MessageCodec.encodeHeader(hb, out), "no payload: the whole frame");
    }

    @Test
    @Timeout(10)
    void wireConstantsMatchTheDocumentedLayout() {
        byte[] magic = new byte[4];
        MemorySegment.ofArray(magic).set(WireFormat.INT_LE, 0, WireFormat.MAGIC);
        assertEquals("NXAR", new String(magic, StandardCharsets.US_ASCII));
        assertEquals(28, WireFormat.HELLO_FRAME_BYTES);
        assertEquals(38, WireFormat.DATA_HEADER_BYTES);
        assertEquals(22, WireFormat.HEARTBEAT_FRAME_BYTES);
        assertEquals(9, WireFormat.GOODBYE_DETAIL_OFFSET);
        assertEquals(0xFFFF_FFFFL - 34, WireFormat.MAX_DATA_PAYLOAD_BYTES);
    }

    @Test
    @Timeout(10)
    void decodedPayloadIsAViewOfTheFrame() {
        byte[] frame = fixture("data").bytes().clone();
        var data = (Message.Data) decode(frame);
        assertSame(frame, data.payload().heapBase().orElseThrow());
        frame[WireFormat.DATA_PAYLOAD_OFFSET] = 0x55;
        assertEquals(0x55, data.payload().get(ValueLayout.JAVA_BYTE, 0));
    }

    // ---------------------------------------------------------------- encode errors

    @Test
    @Timeout(10)
    void encodeRefusesASmallDestinationAndTouchesOnlyTheFrame() {
        Fixture f = fixture("heartbeat");
        assertThatThrownBy(() -> MessageCodec.encode(f.message(), MemorySegment.ofArray(new byte[21])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("21").hasMessageContaining("22");
        byte[] big = new byte[40];
        Arrays.fill(big, (byte) 0x77);
        assertEquals(22, MessageCodec.encode(f.message(), MemorySegment.ofArray(big)));
        assertArrayEquals(f.bytes(), Arrays.copyOf(big, 22));
        assertEquals(0x77, big[22]);
    }

    static Stream<Arguments> unencodable() {
        MemorySegment five = MemorySegment.ofArray(new byte[5]);
        return Stream.of(
                Arguments.of(new Message.Hello(1, 4, 4, 0), "rank 4 is not in [0, 4)"),
                Arguments.of(new Message.Hello(1, 0, 0, 0), "worldSize 0 is less than 1"),
                Arguments.of(new Message.Hello(70_000, 0, 1, 0), "version 70000 does not fit in a u16"),
                Arguments.of(new Message.Data(-1, 0, 0, 5, 0, five), "communicator -1 is negative"),
                Arguments.of(new Message.Data(0, -2, 0, 5, 0, five), "tag -2 is negative"),
                Arguments.of(new Message.Data(0, 0, 0, 4, 0, five), "runs past totalBytes 4"),
                Arguments.of(new Message.Data(0, 0, 0, Long.MAX_VALUE, Long.MAX_VALUE, five), "runs past totalBytes"),
                Arguments.of(new Message.Data(0, 0, 0, 5, 0, null), "payload is null"),
                Arguments.of(new Message.Goodbye(GoodbyeReason.CLOSE, "x".repeat(1025)), "1025 UTF-8 bytes"),
                Arguments.of(new Message.Goodbye(GoodbyeReason.CLOSE, "bad \ud800 text"), "unpaired surrogate"),
                Arguments.of(new Message.Goodbye(null, ""), "reason is null"),
                Arguments.of(new Message.Goodbye(GoodbyeReason.CLOSE, null), "detail is null"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("unencodable")
    @Timeout(10)
    void encodeRefusesMessagesThatWouldNotDecode(Message m, String expected) {
        assertThatThrownBy(() -> MessageCodec.encode(m, MemorySegment.ofArray(new byte[4096])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(expected);
    }

    // ---------------------------------------------------------------- truncation and corruption

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    @Timeout(10)
    void everyTruncationIsRejected(Fixture f) {
        for (int n = 0; n < f.bytes().length; n++) {
            byte[] prefix = Arrays.copyOf(f.bytes(), n);
            var e = assertThrows(ProtocolException.class, () -> decode(prefix), "prefix of " + n + " bytes");
            assertThat(e).hasMessageContaining("rank 3");
            assertEquals(PEER, e.peer().orElseThrow());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    @Timeout(10)
    void trailingBytesAreRejected(Fixture f) {
        byte[] longer = Arrays.copyOf(f.bytes(), f.bytes().length + 1);
        assertThatThrownBy(() -> decode(longer)).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("trailing bytes");
    }

    /** Found by ProtocolFuzzTest: a ballot sent with hasAccepted 0 was dropped in silence instead of refused. */
    @Test
    void anAgreeBallotWithoutHasAcceptedIsRejected() {
        byte[] frame = HexFormat.of().parseHex("1e000000" + "1300" + "00000000" + "01000000" + "01" + "00"
                + "0100" + "0100" + "0100" + "02000000" + "02000000" + "02000000");
        assertThatThrownBy(() -> decode(frame)).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("AGREE from rank 3 has a ballot of 1 ranks but hasAccepted 0");
        frame[15] = 1; // hasAccepted 1: the same bytes are a valid PROPOSE
        assertThat(((Message.Agree) decode(frame)).acceptedBallot()).containsExactly(2);
    }

    /** A fixture with some bytes replaced, and what the error must say. */
    static Stream<Arguments> corruptions() {
        return Stream.of(
                corrupt("status-answer", 6, new int[] {2}, "STATUS from rank 3 has kind 0x02, expected 0 or 1"),
                corrupt("rpc-request", 6, new int[] {0xff, 0xff, 0xff, 0xff},
                        "invalid RPC_REQUEST from rank 3: communicator -1 is negative"),
                corrupt("rpc-request", 18, new int[] {0xff, 0xff, 0xff, 0xff},
                        "invalid RPC_REQUEST from rank 3: functionId -1 is negative"),
                corrupt("rpc-request", 29, new int[] {0x80}, "timeoutNanos -9223372035854775808 is negative"),
                corrupt("rpc-response", 14, new int[] {9}, "unknown RPC_RESPONSE status 0x09 from rank 3"),
                corrupt("rpc-response", 15, new int[] {4}, "invalid RPC_RESPONSE from rank 3: an OK response carries"
                        + " no error code"),
                corrupt("rpc-response-failed", 15, new int[] {0}, "a FAILED response needs an error code"),
                corrupt("rpc-response-failed", 15, new int[] {0x63}, "unknown RPC_RESPONSE error code 0x63"),
                corrupt("rpc-response-failed", 16, new int[] {0x01, 0x04}, "RPC_RESPONSE text of 1025 bytes"),
                corrupt("rpc-response-failed", 18, new int[] {0x05}, "RPC_RESPONSE frame from rank 3 has 55 bytes,"
                        + " expected at least 56"),
                corrupt("rpc-response-failed", 51, new int[] {0xc3, 0x28}, "RPC_RESPONSE text from rank 3 is not"
                        + " valid UTF-8"),
                corrupt("rpc-response", 16, new int[] {0x02}, "an OK response carries no class or detail"),
                corrupt("rpc-response-failed", 14, new int[] {0x02}, "only a FAILED response names a class"),
                corrupt("status-answer", 17, new int[] {0x01, 0x04}, "STATUS text of 1025 bytes from rank 3 exceeds"),
                corrupt("status-answer", 17, new int[] {5}, "STATUS frame from rank 3 has 27 bytes, expected 28"),
                corrupt("status-answer", 19, new int[] {0xff, 0xff, 0xff, 0xff},
                        "invalid STATUS from rank 3: waitingFor is not a sorted set of non-negative ranks"),
                corrupt("status-answer", 6, new int[] {0}, "invalid STATUS from rank 3: a question carries no ranks"),
                corrupt("hello", 4, new int[] {0x2a}, "decode (peer 3) unknown message type 0x2a from rank 3"),
                corrupt("heartbeat", 4, new int[] {0xff}, "unknown message type 0xff from rank 3"),
                corrupt("hello", 10, new int[] {7},
                        "unsupported protocol version 7 from rank 3 (this node speaks 6)"),
                corrupt("hello", 6, new int[] {'M'}, "bad magic 0x5241584d in HELLO from rank 3"),
                corrupt("hello", 5, new int[] {0x01}, "HELLO from rank 3 has flags 0x01, expected 0x00"),
                corrupt("data", 5, new int[] {0x80}, "DATA from rank 3 has flags 0x80"),
                corrupt("hello", 12, new int[] {4}, "invalid HELLO from rank 3: rank 4 is not in [0, 4)"),
                corrupt("hello", 12, new int[] {0xff, 0xff, 0xff, 0xff}, "rank -1 is not in [0, 4)"),
                corrupt("hello", 16, new int[] {0}, "worldSize 0 is less than 1"),
                corrupt("data", 6, new int[] {0xff, 0xff, 0xff, 0xff}, "invalid DATA from rank 3: communicator -1"),
                corrupt("data", 10, new int[] {0xff, 0xff, 0xff, 0x80}, "tag -2130706433 is negative"),
                corrupt("data", 22, new int[] {12}, "chunk of 5 bytes at offset 8 runs past totalBytes 12"),
                corrupt("data", 29, new int[] {0x80}, "totalBytes -9223372036854775792 is negative"),
                corrupt("data", 37, new int[] {0x80}, "offset -9223372036854775800 is negative"),
                corrupt("goodbye", 6, new int[] {9}, "unknown GOODBYE reason 0x09 from rank 3"),
                corrupt("goodbye", 13, new int[] {0xc3, 0x28}, "GOODBYE detail from rank 3 is not valid UTF-8"),
                corrupt("goodbye", 13, new int[] {0xed, 0xa0}, "is not valid UTF-8"), // CESU surrogate
                corrupt("goodbye", 7, new int[] {5}, "GOODBYE frame from rank 3 has 15 bytes, expected 14"),
                corrupt("goodbye", 7, new int[] {0x01, 0x04}, "GOODBYE detail of 1025 bytes from rank 3 exceeds"),
                corrupt("heartbeat", 0, new int[] {0x13}, "truncated frame from rank 3"),
                corrupt("heartbeat", 0, new int[] {0x01}, "frame of 1 bytes from rank 3 is shorter than"),
                corrupt("heartbeat", 0, new int[] {0xff, 0xff, 0xff, 0xff},
                        "frame of 4294967295 bytes from rank 3 exceeds the maximum of 1048576 bytes"));
    }

    private static Arguments corrupt(String name, int at, int[] replacement, String expected) {
        byte[] bytes = fixture(name).bytes().clone();
        for (int i = 0; i < replacement.length; i++) {
            bytes[at + i] = (byte) replacement[i];
        }
        return Arguments.of(name + "[" + at + "]", bytes, expected);
    }

    @ParameterizedTest(name = "{0}: {2}")
    @MethodSource("corruptions")
    @Timeout(10)
    void corruptionsAreRejectedWithAPreciseMessage(String where, byte[] bytes, String expected) {
        var e = assertThrows(ProtocolException.class, () -> decode(bytes));
        assertThat(e).hasMessageContaining(expected);
        assertEquals(PEER, e.peer().orElseThrow());
    }

    @Test
    @Timeout(10)
    void aFutureHelloWithALongerBodyIsAVersionMismatch() {
        byte[] hello = Arrays.copyOf(fixture("hello").bytes(), 40);
        hello[0] = 36;
        hello[10] = 7;
        assertThatThrownBy(() -> decode(hello)).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("unsupported protocol version 7 from rank 3 (this node speaks 6)");
    }

    @Test
    @Timeout(10)
    void lengthAboveTheMaximumIsRejectedAndAnUnknownPeerIsNamed() {
        byte[] hello = fixture("hello").bytes();
        assertThatThrownBy(() -> MessageCodec.decode(-1, MemorySegment.ofArray(hello), 23))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("frame of 24 bytes from an unidentified peer exceeds the maximum of 23 bytes");
        assertSameMessage(fixture("hello").message(), MessageCodec.decode(-1, MemorySegment.ofArray(hello), 24));
        assertThrows(IllegalArgumentException.class, () -> MessageCodec.decode(0, MemorySegment.ofArray(hello), 1));
    }

    // ---------------------------------------------------------------- properties

    @Property(tries = 1000)
    void roundTrip(@ForAll("messages") Message m) {
        byte[] frame = encode(m);
        Message decoded = decode(frame);
        assertSameMessage(m, decoded);
        assertArrayEquals(frame, encode(decoded));
    }

    @Provide
    Arbitrary<Message> messages() {
        Arbitrary<Message> hellos = Arbitraries.integers().between(1, Integer.MAX_VALUE).flatMap(world ->
                Combinators.combine(Arbitraries.integers().between(0, world - 1), Arbitraries.longs())
                        .as((rank, incarnation) -> new Message.Hello(WireFormat.VERSION, rank, world, incarnation)));
        Arbitrary<Message> data = Arbitraries.bytes().array(byte[].class).ofMaxSize(300).flatMap(payload ->
                Arbitraries.longs().between(0, Long.MAX_VALUE - payload.length).flatMap(offset ->
                        Combinators.combine(Arbitraries.integers().greaterOrEqual(0),
                                        Arbitraries.integers().greaterOrEqual(0), Arbitraries.longs(),
                                        Arbitraries.longs().between(offset + payload.length, Long.MAX_VALUE))
                                .as((comm, tag, seq, total) -> new Message.Data(comm, tag, seq, total, offset,
                                        MemorySegment.ofArray(payload)))));
        Arbitrary<Message> heartbeats = Combinators.combine(Arbitraries.longs(), Arbitraries.longs())
                .as(Message.Heartbeat::new);
        Arbitrary<String> text = Arbitraries.integers().between(0, Character.MAX_CODE_POINT)
                .filter(cp -> cp < Character.MIN_SURROGATE || cp > Character.MAX_SURROGATE)
                .list().ofMaxSize(WireFormat.MAX_TEXT_BYTES / 4)
                .map(cps -> cps.stream().collect(StringBuilder::new, StringBuilder::appendCodePoint,
                        StringBuilder::append).toString());
        Arbitrary<Message> goodbyes = Combinators.combine(Arbitraries.of(GoodbyeReason.class), text)
                .as(Message.Goodbye::new);
        Arbitrary<Message> collectives = Arbitraries.bytes().array(byte[].class).ofMaxSize(300).flatMap(payload ->
                Arbitraries.longs().between(0, Long.MAX_VALUE - payload.length).flatMap(offset ->
                        Combinators.combine(Arbitraries.integers().greaterOrEqual(0), Arbitraries.longs()
                                        .greaterOrEqual(0), Arbitraries.integers().greaterOrEqual(0),
                                Arbitraries.integers().between(0, 255), Arbitraries.integers().between(-1, 1 << 20),
                                Arbitraries.longs().greaterOrEqual(-1),
                                Arbitraries.longs().between(offset + payload.length, Long.MAX_VALUE))
                                .as((comm, seq, step, code, root, count, total) -> (Message) new Message.Collective(
                                        comm, seq, step, code, code ^ 1, code ^ 2, root, count, total, offset,
                                        MemorySegment.ofArray(payload)))));
        Arbitrary<Message> aborts = Combinators.combine(Arbitraries.integers().greaterOrEqual(0),
                        Arbitraries.longs().greaterOrEqual(0), Arbitraries.of(AbortReason.class),
                        Arbitraries.integers().between(0, 255), Arbitraries.integers().between(-1, 1 << 20), text)
                .as(Message.CollectiveAbort::new);
        Arbitrary<Message> rpcRequests = Arbitraries.bytes().array(byte[].class).ofMaxSize(300).flatMap(payload ->
                Combinators.combine(Arbitraries.integers().greaterOrEqual(0), Arbitraries.longs(),
                                Arbitraries.integers().greaterOrEqual(0), Arbitraries.longs().greaterOrEqual(0))
                        .as((comm, id, fn, timeout) -> (Message) new Message.RpcRequest(comm, id, fn, timeout,
                                MemorySegment.ofArray(payload))));
        Arbitrary<Message> rpcOk = Combinators.combine(Arbitraries.longs(),
                        Arbitraries.bytes().array(byte[].class).ofMaxSize(300))
                .as((id, payload) -> new Message.RpcResponse(id, RpcStatus.OK, null, "", "",
                        MemorySegment.ofArray(payload)));
        Arbitrary<Message> rpcFailed = Combinators.combine(Arbitraries.longs(),
                        Arbitraries.of(RpcStatus.FAILED, RpcStatus.UNKNOWN_FUNCTION, RpcStatus.OVERLOADED),
                        Arbitraries.of(ErrorCode.class), text, text)
                .as((id, status, code, cls, detail) -> new Message.RpcResponse(id, status, code,
                        status == RpcStatus.FAILED ? cls : "", detail, MemorySegment.ofArray(new byte[0])));
        Arbitrary<Message> rpcCancels = Arbitraries.longs().map(Message.RpcCancel::new);
        return Arbitraries.oneOf(hellos, data, heartbeats, goodbyes, collectives, aborts, rpcRequests, rpcOk,
                rpcFailed, rpcCancels);
    }

    @Property(tries = 2000)
    void randomBytesRaiseOnlyProtocolExceptions(@ForAll @Size(max = 2048) byte[] bytes) {
        decodeOrProtocolException(bytes);
        feedOrProtocolException(bytes, 1 + (bytes.length & 63));
    }

    /** Random bodies behind a valid length prefix, type code and zero flags reach the per-type decoders. */
    @Property(tries = 2000)
    void randomBodiesRaiseOnlyProtocolExceptions(@ForAll("typeCodes") int type,
                                                 @ForAll @Size(max = 2048) byte[] body) {
        byte[] frame = new byte[WireFormat.FRAME_HEADER_BYTES + body.length];
        MemorySegment.ofArray(frame).set(WireFormat.INT_LE, 0, frame.length - WireFormat.LENGTH_PREFIX_BYTES);
        frame[WireFormat.TYPE_OFFSET] = (byte) type;
        System.arraycopy(body, 0, frame, WireFormat.FRAME_HEADER_BYTES, body.length);
        decodeOrProtocolException(frame);
        feedOrProtocolException(frame, 7);
    }

    @Provide
    Arbitrary<Integer> typeCodes() {
        return Arbitraries.oneOf(Arbitraries.of(MessageType.class).map(MessageType::code),
                Arbitraries.integers().between(0, 255));
    }

    /** Golden frames with one byte changed: each must decode to something valid or raise a ProtocolException. */
    @Property(tries = 2000)
    void corruptedFixturesRaiseOnlyProtocolExceptions(@ForAll @IntRange(max = 4) int which,
                                                      @ForAll @IntRange(max = 1000) int position,
                                                      @ForAll @IntRange(min = 1, max = 255) int xor) {
        byte[] bytes = fixtures().get(which).bytes().clone();
        bytes[position % bytes.length] ^= (byte) xor;
        decodeOrProtocolException(bytes);
        feedOrProtocolException(bytes, 3);
    }

    private static void decodeOrProtocolException(byte[] bytes) {
        try {
            Message m = decode(bytes);
            assertArrayEquals(bytes, encode(m), "a frame that decodes must re-encode to the same bytes");
        } catch (ProtocolException expected) {
            assertEquals(PEER, expected.peer().orElseThrow());
        }
    }

    private static void feedOrProtocolException(byte[] bytes, int chunk) {
        var decoder = new FrameDecoder(PEER, MAX);
        Consumer<Message> sink = m -> encode(detach(m));
        try {
            for (int at = 0; at < bytes.length; at += chunk) {
                decoder.feed(ByteBuffer.wrap(bytes, at, Math.min(chunk, bytes.length - at)), sink);
            }
        } catch (ProtocolException expected) {
            assertThat(decoder.isFailed()).isTrue();
            assertSame(expected, assertThrows(ProtocolException.class, () -> decoder.feed(ByteBuffer.allocate(1),
                    sink)));
        }
    }
}
