package io.nexar.internal.protocol;

import static io.nexar.internal.protocol.MessageCodecTest.decode;
import static io.nexar.internal.protocol.MessageCodecTest.encode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.nexar.ProtocolException;
import io.nexar.internal.protocol.EnrolmentMessage.Admission;
import io.nexar.internal.protocol.EnrolmentMessage.GrowPoll;
import io.nexar.internal.protocol.EnrolmentMessage.JoinAccepted;
import io.nexar.internal.protocol.EnrolmentMessage.JoinChallenge;
import io.nexar.internal.protocol.EnrolmentMessage.JoinRefused;
import io.nexar.internal.protocol.EnrolmentMessage.JoinRequest;
import io.nexar.internal.protocol.EnrolmentMessage.PeerTable;
import io.nexar.internal.protocol.EnrolmentMessage.RenewRequest;
import io.nexar.internal.protocol.EnrolmentMessage.Renewed;
import io.nexar.internal.protocol.EnrolmentMessage.SeedProof;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden bytes, round trips, truncations and corruptions of the enrolment messages (codes 0x40-0x4A). Property tests
 * are seeded by jqwik, which prints the seed of every run.
 */
class EnrolmentCodecTest {

    static List<MessageCodecTest.Fixture> fixtures() {
        return List.of(
                fixture("join-challenge", new JoinChallenge(bytes(IntStream.range(0, 32)))),
                fixture("join-request", new JoinRequest(bytes(IntStream.range(0xa0, 0xc0)), 2,
                        bytes(IntStream.of(0x30, 3, 2, 1, 0)), address("127.0.0.1", 7400), address("::1", 7401))),
                fixture("join-request-any", new JoinRequest(new byte[32], -1, bytes(IntStream.of(0x30, 0)),
                        address("10.1.2.3", 443), null)),
                fixture("join-accepted", new JoinAccepted(1, 4, "0a1b", List.of(bytes(IntStream.of(0x30, 1, 0xaa)),
                        bytes(IntStream.of(0x30, 2, 0xbb, 0xcc))))),
                fixture("join-refused", new JoinRefused(JoinRefusal.BAD_TOKEN, "wrong token")),
                fixture("seed-proof", new SeedProof(bytes(IntStream.range(0xc0, 0xe0)))),
                fixture("renew-request", new RenewRequest(bytes(IntStream.range(0xe0, 0x100)),
                        bytes(IntStream.of(0x30, 1, 0xaa)), bytes(IntStream.of(0x30, 2, 0xbb, 0xcc)))),
                fixture("renewed", new Renewed(List.of(bytes(IntStream.of(0x30, 1, 0xaa)),
                        bytes(IntStream.of(0x30, 2, 0xbb, 0xcc))))),
                fixture("peer-table", new PeerTable(List.of(
                        new PeerTable.Entry(0, "a0", address("10.0.0.1", 7400), address("10.0.0.1", 7401)),
                        new PeerTable.Entry(1, "b1", address("2001:db8::5", 7400), null)))));
    }

    static MessageCodecTest.Fixture fixture(String name) {
        return fixtures().stream().filter(f -> f.name().equals(name)).findFirst().orElseThrow();
    }

    private static MessageCodecTest.Fixture fixture(String name, Message message) {
        String resource = "/protocol/" + name + ".hex";
        try (InputStream in = EnrolmentCodecTest.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + resource);
            }
            String hex = new String(in.readAllBytes(), StandardCharsets.UTF_8).replaceAll("#[^\n]*", "")
                    .replaceAll("\\s+", "");
            return new MessageCodecTest.Fixture(name, message, HexFormat.of().parseHex(hex));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] bytes(IntStream values) {
        int[] v = values.toArray();
        byte[] b = new byte[v.length];
        for (int i = 0; i < v.length; i++) {
            b[i] = (byte) v[i];
        }
        return b;
    }

    static InetSocketAddress address(String ip, int port) {
        try {
            return new InetSocketAddress(InetAddress.getByName(ip), port);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    // ---------------------------------------------------------------- golden bytes

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    @Timeout(10)
    void encodesToGoldenBytes(MessageCodecTest.Fixture f) {
        assertEquals(f.bytes().length, MessageCodec.encodedSize(f.message()));
        assertEquals(HexFormat.of().formatHex(f.bytes()), HexFormat.of().formatHex(encode(f.message())));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    @Timeout(10)
    void decodesGoldenBytes(MessageCodecTest.Fixture f) {
        assertEquals(f.message(), decode(f.bytes()));
    }

    @Test
    @Timeout(10)
    void typeCodesAreInTheEnrolmentRange() {
        assertThat(List.of(MessageType.JOIN_CHALLENGE, MessageType.JOIN_REQUEST, MessageType.JOIN_ACCEPTED,
                MessageType.JOIN_REFUSED, MessageType.PEER_TABLE, MessageType.SEED_PROOF, MessageType.RENEW_REQUEST,
                MessageType.RENEWED)).extracting(MessageType::code)
                .containsExactly(0x40, 0x41, 0x42, 0x43, 0x44, 0x48, 0x49, 0x4a);
        assertEquals(38, EnrolmentCodec.CHALLENGE_FRAME_BYTES);
        assertEquals(44, EnrolmentCodec.REQUEST_CSR_OFFSET);
        assertEquals(14, EnrolmentCodec.ACCEPTED_ID_LENGTH_OFFSET);
        assertEquals(9, EnrolmentCodec.REFUSED_REASON_OFFSET);
        assertEquals(10, EnrolmentCodec.TABLE_ENTRIES_OFFSET);
        assertEquals(6 + 4 * 107, EnrolmentCodec.maxPeerTableFrameBytes(4));
    }

    // ---------------------------------------------------------------- truncation and corruption

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    @Timeout(10)
    void everyTruncationIsRejected(MessageCodecTest.Fixture f) {
        for (int n = 0; n < f.bytes().length; n++) {
            byte[] prefix = Arrays.copyOf(f.bytes(), n);
            var e = assertThrows(ProtocolException.class, () -> decode(prefix), "prefix of " + n + " bytes");
            assertThat(e).hasMessageContaining("rank 3");
        }
    }

    /** A truncation with a consistent length prefix reaches the body decoder, which must refuse it too. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    @Timeout(10)
    void everyShortenedBodyIsRejected(MessageCodecTest.Fixture f) {
        for (int n = WireFormat.FRAME_HEADER_BYTES; n < f.bytes().length; n++) {
            byte[] frame = Arrays.copyOf(f.bytes(), n);
            MemorySegment.ofArray(frame).set(WireFormat.INT_LE, 0, n - WireFormat.LENGTH_PREFIX_BYTES);
            assertThrows(ProtocolException.class, () -> decode(frame), "body cut to " + n + " bytes");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("fixtures")
    @Timeout(10)
    void trailingBytesAreRejected(MessageCodecTest.Fixture f) {
        byte[] longer = Arrays.copyOf(f.bytes(), f.bytes().length + 1);
        MemorySegment.ofArray(longer).set(WireFormat.INT_LE, 0, longer.length - WireFormat.LENGTH_PREFIX_BYTES);
        assertThatThrownBy(() -> decode(longer)).isInstanceOf(ProtocolException.class);
    }

    static Stream<Arguments> corruptions() {
        return Stream.of(
                corrupt("join-request", 38, new int[] {0xfe, 0xff, 0xff, 0xff},
                        "invalid JOIN_REQUEST from rank 3: requestedRank -2 is less than -1"),
                corrupt("join-request", 42, new int[] {0x01, 0x20}, "CSR length 8193 from rank 3 is not in [1, 8192]"),
                corrupt("join-request", 42, new int[] {0xff, 0x00},
                        "truncated JOIN_REQUEST frame from rank 3: the 255-byte field at offset 44 runs past its end at 75"),
                corrupt("join-request", 49, new int[] {5}, "has unknown address family 5 (0, 4 or 6 expected)"),
                corrupt("join-request", 49, new int[] {0}, "bulk address from rank 3 has unknown address family 127"),
                corrupt("join-request", 54, new int[] {0, 0}, "QUIC address from rank 3 has port 0"),
                Arguments.of("join-request-any[46..]", splice("join-request-any", 46, 0, 0),
                        "invalid JOIN_REQUEST from rank 3: quicAddress is null"),
                Arguments.of("join-request-any[53..]", splice("join-request-any", 53, 0, 0),
                        "JOIN_REQUEST frame from rank 3 has 1 bytes after its last field"),
                corrupt("join-accepted", 6, new int[] {4}, "invalid JOIN_ACCEPTED from rank 3: rank 4 is not in [0, 4)"),
                corrupt("join-accepted", 10, new int[] {0}, "worldSize 0 is less than 1"),
                corrupt("join-accepted", 14, new int[] {0}, "member id length 0 from rank 3 is not in [1, 64]"),
                corrupt("join-accepted", 14, new int[] {65}, "member id length 65 from rank 3 is not in [1, 64]"),
                corrupt("join-accepted", 15, new int[] {'A'}, "member id has character 0x41"),
                corrupt("join-accepted", 19, new int[] {0}, "certificate count length 0 from rank 3 is not in [1, 4]"),
                corrupt("join-accepted", 19, new int[] {5}, "certificate count length 5 from rank 3 is not in [1, 4]"),
                corrupt("join-accepted", 20, new int[] {0x01, 0x20}, "certificate length 8193"),
                corrupt("join-refused", 6, new int[] {0x63}, "unknown JOIN_REFUSED code 0x63 from rank 3"),
                corrupt("join-refused", 7, new int[] {0x01, 0x04}, "reason length 1025 from rank 3 is not in [0, 1024]"),
                corrupt("join-refused", 9, new int[] {0xc3, 0x28}, "JOIN_REFUSED reason from rank 3 is not valid UTF-8"),
                corrupt("peer-table", 6, new int[] {0xff, 0xff, 0xff, 0xff},
                        "PEER_TABLE from rank 3 claims 4294967295 entries; its 48 remaining bytes hold between 1 and 3"),
                corrupt("peer-table", 6, new int[] {0}, "claims 0 entries"),
                corrupt("peer-table", 10, new int[] {1}, "entry 1 has rank 1; entries must be in increasing rank order from 0"),
                corrupt("peer-table", 36, new int[] {'a', '0'}, "member id a0 appears twice"),
                Arguments.of("peer-table[38..]", splice("peer-table", 38, 0, 0),
                        "invalid PEER_TABLE from rank 3: rank 1 has no QUIC address"));
    }

    private static Arguments corrupt(String name, int at, int[] replacement, String expected) {
        byte[] bytes = fixture(name).bytes().clone();
        for (int i = 0; i < replacement.length; i++) {
            bytes[at + i] = (byte) replacement[i];
        }
        return Arguments.of(name + "[" + at + "]", bytes, expected);
    }

    /** The fixture's first {@code at} bytes followed by {@code tail}, with the length prefix fixed up. */
    private static byte[] splice(String name, int at, int... tail) {
        byte[] bytes = Arrays.copyOf(fixture(name).bytes(), at + tail.length);
        for (int i = 0; i < tail.length; i++) {
            bytes[at + i] = (byte) tail[i];
        }
        MemorySegment.ofArray(bytes).set(WireFormat.INT_LE, 0, bytes.length - WireFormat.LENGTH_PREFIX_BYTES);
        return bytes;
    }

    @ParameterizedTest(name = "{0}: {2}")
    @MethodSource("corruptions")
    @Timeout(10)
    void corruptionsAreRejectedWithAPreciseMessage(String where, byte[] bytes, String expected) {
        var e = assertThrows(ProtocolException.class, () -> decode(bytes));
        assertThat(e).hasMessageContaining(expected);
    }

    @Test
    @Timeout(10)
    void anIpv4MappedIpv6AddressIsRefusedSoEveryFrameReencodesIdentically() {
        byte[] bytes = fixture("join-request").bytes().clone();
        bytes[67] = (byte) 0xff; // bulk address ::1 -> ::ffff:0.0.0.1, the mapped form of 0.0.0.1
        bytes[68] = (byte) 0xff;
        assertThatThrownBy(() -> decode(bytes)).isInstanceOf(ProtocolException.class)
                .hasMessageContaining("IPv4-mapped IPv6 address");
    }

    @Test
    @Timeout(10)
    void anOversizedPeerTableIsRefusedBeforeAllocationByTheStreamingDecoder() {
        var decoder = new FrameDecoder(-1, EnrolmentCodec.MAX_ENROLMENT_FRAME_BYTES);
        byte[] prefix = {(byte) 0xff, (byte) 0xff, (byte) 0xff, 0x7f, 0x44, 0};
        assertThatThrownBy(() -> decoder.feed(ByteBuffer.wrap(prefix), m -> { }))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("frame of 2147483647 bytes from an unidentified peer exceeds the maximum of 65536");
        assertThat(decoder.bufferCapacity()).isEqualTo(FrameDecoder.INITIAL_CAPACITY);
    }

    static Stream<Arguments> unencodable() {
        byte[] p = new byte[32];
        var a = address("127.0.0.1", 1);
        return Stream.of(
                Arguments.of(new JoinChallenge(new byte[31]), "nonce must have 32 bytes"),
                Arguments.of(new SeedProof(new byte[33]), "proof must have 32 bytes"),
                Arguments.of(new RenewRequest(new byte[31], new byte[1], new byte[1]), "proof must have 32 bytes"),
                Arguments.of(new RenewRequest(p, new byte[0], new byte[1]), "certificate must have 1 to 8192 bytes"),
                Arguments.of(new RenewRequest(p, new byte[1], new byte[8193]), "CSR must have 1 to 8192 bytes"),
                Arguments.of(new Renewed(List.of()), "chain must have 1 to 4"),
                Arguments.of(new JoinRequest(new byte[31], 0, new byte[1], a, null), "proof must have 32 bytes"),
                Arguments.of(new JoinRequest(p, -2, new byte[1], a, null), "requestedRank -2"),
                Arguments.of(new JoinRequest(p, 0, new byte[0], a, null), "CSR must have 1 to 8192 bytes"),
                Arguments.of(new JoinRequest(p, 0, new byte[1], null, null), "quicAddress is null"),
                Arguments.of(new JoinRequest(p, 0, new byte[1], InetSocketAddress.createUnresolved("h", 1), null),
                        "is unresolved"),
                Arguments.of(new JoinRequest(p, 0, new byte[1], address("127.0.0.1", 0), null), "has port 0"),
                Arguments.of(new JoinAccepted(0, 1, "Seed", List.of(new byte[1])), "member id has character"),
                Arguments.of(new JoinAccepted(0, 1, "s", List.of()), "chain must have 1 to 4"),
                Arguments.of(new JoinAccepted(1, 1, "s", List.of(new byte[1])), "rank 1 is not in [0, 1)"),
                Arguments.of(new JoinRefused(JoinRefusal.BAD_CSR, "x".repeat(1025)), "1025 UTF-8 bytes"),
                Arguments.of(new JoinRefused(JoinRefusal.BAD_CSR, "bad \ud800"), "unpaired surrogate"),
                Arguments.of(new JoinRefused(null, ""), "code is null"),
                Arguments.of(new PeerTable(List.of()), "peer table has no entries"),
                Arguments.of(new PeerTable(List.of(new PeerTable.Entry(1, "a", a, null),
                        new PeerTable.Entry(0, "b", a, null))), "entry 1 has rank 0"),
                Arguments.of(new JoinRequest(p, 2, new byte[1], a, null, true), "elastic join cannot request a rank"),
                Arguments.of(new GrowPoll(p, 0, 7, 1, new int[] {0}), "max 0 is less than 1"),
                Arguments.of(new GrowPoll(p, 1, 7, 0, new int[] {0}), "generation 0 is less than 1"),
                Arguments.of(new GrowPoll(p, 1, 7, 1, new int[0]), "members must list 1 to 65535"),
                Arguments.of(new GrowPoll(p, 1, 7, 1, new int[] {2, 2}), "listed twice"),
                Arguments.of(new Admission(7, 1, new int[] {0, 3}, List.of(new PeerTable.Entry(2, "a", a, null))),
                        "newcomer rank 2 is not above every member's (3)"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("unencodable")
    @Timeout(10)
    void encodeRefusesMessagesThatWouldNotDecode(Message m, String expected) {
        assertThatThrownBy(() -> MessageCodec.encode(m, MemorySegment.ofArray(new byte[1 << 16])))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(expected);
    }

    @Test
    @Timeout(10)
    void elasticMessagesRoundTrip() {
        var a = address("127.0.0.1", 7400);
        var b = address("::1", 7401);
        List<Message> messages = List.of(
                new JoinRequest(new byte[32], -1, new byte[] {0x30, 0}, a, b, true),
                new GrowPoll(bytes(IntStream.range(0, 32)), 3, 0x1234, 2, new int[] {0, 2, 5}),
                new Admission(0x1234, 2, new int[] {0, 2, 5}, List.of()),
                new Admission(0x1234, 2, new int[] {0, 2, 5}, List.of(new PeerTable.Entry(6, "c6", a, b),
                        new PeerTable.Entry(8, "d8", b, null))),
                new PeerTable(List.of(new PeerTable.Entry(0, "a0", a, null), new PeerTable.Entry(5, "f5", b, a))));
        for (Message m : messages) {
            byte[] frame = encode(m);
            assertEquals(m, decode(frame), m.toString());
            assertArrayEquals(frame, encode(decode(frame)));
        }
        assertEquals(MessageType.ELASTIC_JOIN_REQUEST, messages.getFirst().type());
        byte[] poll = encode(messages.get(1));
        assertEquals(0x46, poll[4] & 0xff);
        // the proof covers the body after it, exactly as encoded
        byte[] covered = EnrolmentCodec.pollProofInput(3, 0x1234, 2, new int[] {0, 2, 5});
        assertArrayEquals(covered, Arrays.copyOfRange(poll, EnrolmentCodec.POLL_MAX_OFFSET, poll.length));
    }

    @Test
    @Timeout(10)
    void recordsCopyTheirArraysAndCompareByContent() {
        byte[] nonce = new byte[32];
        var c = new JoinChallenge(nonce);
        nonce[0] = 1;
        assertEquals(new JoinChallenge(new byte[32]), c);
        c.nonce()[1] = 1;
        assertEquals(new JoinChallenge(new byte[32]).hashCode(), c.hashCode());
    }

    // ---------------------------------------------------------------- properties

    @Property(tries = 500)
    void roundTrip(@ForAll("enrolmentMessages") Message m) {
        byte[] frame = encode(m);
        Message decoded = decode(frame);
        assertEquals(m, decoded);
        assertArrayEquals(frame, encode(decoded));
    }

    @Property(tries = 2000)
    void corruptedFixturesDecodeToValidMessagesOrRaiseProtocolExceptions(@ForAll @IntRange(max = 5) int which,
            @ForAll @IntRange(max = 1000) int position, @ForAll @IntRange(min = 1, max = 255) int xor) {
        byte[] bytes = fixtures().get(which).bytes().clone();
        bytes[position % bytes.length] ^= (byte) xor;
        try {
            assertArrayEquals(bytes, encode(decode(bytes)), "a frame that decodes must re-encode identically");
        } catch (ProtocolException expected) {
            assertEquals(MessageCodecTest.PEER, expected.peer().orElseThrow());
        }
    }

    @Provide
    Arbitrary<Message> enrolmentMessages() {
        Arbitrary<byte[]> b32 = Arbitraries.bytes().array(byte[].class).ofSize(32);
        Arbitrary<InetSocketAddress> addr = Combinators.combine(
                Arbitraries.oneOf(Arbitraries.bytes().array(byte[].class).ofSize(4),
                        Arbitraries.bytes().array(byte[].class).ofSize(16)
                                .filter(ip -> !(ip[10] == -1 && ip[11] == -1 && Arrays.equals(ip, 0, 10,
                                        new byte[10], 0, 10)))),
                Arbitraries.integers().between(1, 65535)).as((ip, port) -> {
                    try {
                        return new InetSocketAddress(InetAddress.getByAddress(ip), port);
                    } catch (UnknownHostException e) {
                        throw new IllegalStateException(e);
                    }
                });
        Arbitrary<String> id = Arbitraries.strings().withChars("abcdefghijklmnopqrstuvwxyz0123456789-.")
                .ofMinLength(1).ofMaxLength(64);
        Arbitrary<byte[]> der = Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(300);
        Arbitrary<Message> challenges = b32.map(JoinChallenge::new);
        Arbitrary<Message> requests = Combinators.combine(b32, Arbitraries.integers().between(-1, 1 << 20), der, addr,
                addr.injectNull(0.3)).as(JoinRequest::new);
        Arbitrary<Message> accepted = Combinators.combine(Arbitraries.integers().between(1, 1 << 20), id,
                der.list().ofMinSize(1).ofMaxSize(4)).flatAs((world, memberId, chain) ->
                Arbitraries.integers().between(0, world - 1).map(r -> new JoinAccepted(r, world, memberId, chain)));
        Arbitrary<Message> refused = Combinators.combine(Arbitraries.of(JoinRefusal.class),
                Arbitraries.strings().ofMaxLength(200)
                        .filter(text -> StandardCharsets.UTF_8.newEncoder().canEncode(text))).as(JoinRefused::new);
        Arbitrary<Message> tables = Combinators.combine(addr, addr.injectNull(0.5)).as(Arrays::asList).list()
                .ofMinSize(1).ofMaxSize(20).map(rows -> {
                    var entries = new ArrayList<PeerTable.Entry>();
                    for (int i = 0; i < rows.size(); i++) {
                        entries.add(new PeerTable.Entry(i, "m" + i, rows.get(i).get(0), rows.get(i).get(1)));
                    }
                    return new PeerTable(entries);
                });
        return Arbitraries.oneOf(challenges, requests, accepted, refused, tables);
    }
}
