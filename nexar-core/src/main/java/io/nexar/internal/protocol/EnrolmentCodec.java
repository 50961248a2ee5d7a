package io.nexar.internal.protocol;

import static io.nexar.internal.protocol.WireFormat.FRAME_HEADER_BYTES;
import static io.nexar.internal.protocol.WireFormat.LENGTH_PREFIX_BYTES;
import static io.nexar.internal.protocol.WireFormat.MAX_TEXT_BYTES;

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
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * The wire constants and body layouts of the enrolment messages ({@link EnrolmentMessage}, type codes 0x40-0x4F),
 * the enrolment section of {@link WireFormat}. {@link MessageCodec} frames them (length, type, flags) and calls this
 * class for the body. docs/protocol.md section 7 lists every byte; offsets below are from the frame start.
 *
 * <pre>
 * JOIN_CHALLENGE (0x40)  6 nonce[32]                                                       38 end
 * JOIN_REQUEST   (0x41)  6 proof[32] | 38 requestedRank i32 | 42 csrLength u16 (n) | 44 csr[n] | quic address
 *                        | bulk address                                                    end of frame
 * JOIN_ACCEPTED  (0x42)  6 rank i32 | 10 worldSize i32 | 14 idLength u8 (m) | 15 id[m] | certCount u8 (k)
 *                        | k x (certLength u16, cert DER)                                  end of frame
 * JOIN_REFUSED   (0x43)  6 code u8 | 7 reasonLength u16 (n) | 9 reason UTF-8[n]            9+n end
 * PEER_TABLE     (0x44)  6 count u32 | 10 count x entry                                   end of frame
 * ELASTIC_JOIN_REQUEST (0x45)  the body of JOIN_REQUEST; requestedRank must be -1
 * GROW_POLL      (0x46)  6 proof[32] | 38 max i32 | 42 communicator i32 | 46 generation i32 | 50 count u32
 *                        | 54 count x worldRank i32                                        end of frame
 * ADMISSION      (0x47)  6 communicator i32 | 10 generation i32 | 14 count u32 | 18 count x worldRank i32
 *                        | newcomerCount u32 | newcomerCount x entry                       end of frame
 * SEED_PROOF     (0x48)  6 proof[32]                                                       38 end
 * RENEW_REQUEST  (0x49)  6 proof[32] | 38 certLength u16 (m) | 40 cert[m] | csrLength u16 (n) | csr[n]
 *                                                                                          end of frame
 * RENEWED        (0x4A)  6 certCount u8 (k) | k x (certLength u16, cert DER)              end of frame
 *
 * entry   = rank i32 | idLength u8 | id | quic address | bulk address    (entries in increasing rank order)
 *
 * address = family u8: 0 none | 4: 4 address bytes, port u16 | 6: 16 address bytes, port u16
 * </pre>
 *
 * <p>Every variable-length field is checked against its maximum and against the bytes left in the frame before
 * anything is allocated for it, and a count of entries is checked against the smallest possible entry size.
 *
 * <p>This class dispatches by type and holds the join family (JOIN_*, SEED_PROOF, PEER_TABLE) and the parts the
 * families share (chains, peer table entries, addresses, member ids); {@link GrowthCodec} holds GROW_POLL and
 * ADMISSION, {@link RenewalCodec} RENEW_REQUEST and RENEWED. Stateless.
 */
public final class EnrolmentCodec {

    /** Size of a {@link JoinChallenge} nonce. */
    public static final int NONCE_BYTES = 32;
    /** Size of a {@link JoinRequest} proof (HMAC-SHA256). */
    public static final int PROOF_BYTES = 32;
    /** Largest CSR in a join request. */
    public static final int MAX_CSR_BYTES = 8192;
    /** Largest certificate in a join acceptance. */
    public static final int MAX_CERT_BYTES = 8192;
    /** Most certificates in a join acceptance's chain. */
    public static final int MAX_CHAIN_CERTS = 4;
    /** Longest member id, in bytes (ASCII). */
    public static final int MAX_MEMBER_ID_BYTES = 64;
    /** Address family byte: no address. */
    public static final int FAMILY_NONE = 0;
    /** Address family byte: IPv4, 4 address bytes then a u16 port. */
    public static final int FAMILY_IPV4 = 4;
    /** Address family byte: IPv6, 16 address bytes then a u16 port. */
    public static final int FAMILY_IPV6 = 6;

    /** JoinChallenge: the nonce. */
    public static final int CHALLENGE_NONCE_OFFSET = FRAME_HEADER_BYTES;
    /** Size of a whole JoinChallenge frame, length prefix included (38). */
    public static final int CHALLENGE_FRAME_BYTES = CHALLENGE_NONCE_OFFSET + NONCE_BYTES;
    /** JoinRequest: the proof. */
    public static final int REQUEST_PROOF_OFFSET = FRAME_HEADER_BYTES;
    /** JoinRequest: i32 requested rank, -1 for any. */
    public static final int REQUEST_RANK_OFFSET = REQUEST_PROOF_OFFSET + PROOF_BYTES;
    /** JoinRequest: u16 CSR length. */
    public static final int REQUEST_CSR_LENGTH_OFFSET = REQUEST_RANK_OFFSET + 4;
    /** JoinRequest: the CSR, followed by the QUIC and bulk addresses. */
    public static final int REQUEST_CSR_OFFSET = REQUEST_CSR_LENGTH_OFFSET + 2;
    /** JoinAccepted: i32 rank. */
    public static final int ACCEPTED_RANK_OFFSET = FRAME_HEADER_BYTES;
    /** JoinAccepted: i32 world size. */
    public static final int ACCEPTED_WORLD_SIZE_OFFSET = ACCEPTED_RANK_OFFSET + 4;
    /** JoinAccepted: u8 member id length, then the id, the u8 certificate count and the certificates. */
    public static final int ACCEPTED_ID_LENGTH_OFFSET = ACCEPTED_WORLD_SIZE_OFFSET + 4;
    /** JoinRefused: u8 {@link JoinRefusal} code. */
    public static final int REFUSED_CODE_OFFSET = FRAME_HEADER_BYTES;
    /** JoinRefused: u16 reason length. */
    public static final int REFUSED_REASON_LENGTH_OFFSET = REFUSED_CODE_OFFSET + 1;
    /** JoinRefused: the UTF-8 reason, which ends exactly at the end of the frame. */
    public static final int REFUSED_REASON_OFFSET = REFUSED_REASON_LENGTH_OFFSET + 2;
    /** PeerTable: u32 entry count. */
    public static final int TABLE_COUNT_OFFSET = FRAME_HEADER_BYTES;
    /** PeerTable: the first entry. */
    public static final int TABLE_ENTRIES_OFFSET = TABLE_COUNT_OFFSET + 4;
    /** GrowPoll: the proof. */
    public static final int POLL_PROOF_OFFSET = FRAME_HEADER_BYTES;
    /** GrowPoll: i32 most workers to admit; the proof covers the body from here to the end. */
    public static final int POLL_MAX_OFFSET = POLL_PROOF_OFFSET + PROOF_BYTES;
    /** RenewRequest: the proof. */
    public static final int RENEW_PROOF_OFFSET = FRAME_HEADER_BYTES;
    /** RenewRequest: u16 certificate length; the proof covers the body from here to the end. */
    public static final int RENEW_CERT_LENGTH_OFFSET = RENEW_PROOF_OFFSET + PROOF_BYTES;
    /** Most members a GROW_POLL or ADMISSION lists (the largest world, setting world.max.size). */
    public static final int MAX_MEMBERS = 65535;
    /** Smallest peer table entry: rank, a 1-byte id, an IPv4 QUIC address, no bulk address (14). */
    public static final int MIN_TABLE_ENTRY_BYTES = 4 + 1 + 1 + 7 + 1;
    /** Largest peer table entry: rank, a 64-byte id, two IPv6 addresses (107). */
    public static final int MAX_TABLE_ENTRY_BYTES = 4 + 1 + MAX_MEMBER_ID_BYTES + 19 + 19;
    /**
     * A bound on the length field of every enrolment frame except PEER_TABLE (a join acceptance with a full chain is
     * the largest, about 33 KiB): what an enrolment connection's decoder accepts.
     */
    public static final long MAX_ENROLMENT_FRAME_BYTES = 64 * 1024;

    private EnrolmentCodec() {
    }

    /**
     * The largest length field a PEER_TABLE of {@code worldSize} entries can have: the bound a worker uses for that
     * frame once its join acceptance told it the world size.
     */
    public static long maxPeerTableFrameBytes(int worldSize) {
        return TABLE_ENTRIES_OFFSET - LENGTH_PREFIX_BYTES + (long) Math.max(worldSize, 0) * MAX_TABLE_ENTRY_BYTES;
    }

    // ---------------------------------------------------------------- size and encode (fields already validated)

    /** Frame size of a valid message, length prefix included. */
    static long encodedSize(EnrolmentMessage m) {
        return switch (m) {
            case JoinChallenge _ -> CHALLENGE_FRAME_BYTES;
            case JoinRequest r -> REQUEST_CSR_OFFSET + r.csr().length + addressSize(r.quicAddress())
                    + addressSize(r.bulkAddress());
            case JoinAccepted a -> ACCEPTED_ID_LENGTH_OFFSET + 1 + a.memberId().length() + chainSize(a.certChain());
            case JoinRefused r -> REFUSED_REASON_OFFSET + r.reason().getBytes(StandardCharsets.UTF_8).length;
            case PeerTable t -> TABLE_ENTRIES_OFFSET + entriesSize(t.entries());
            case GrowPoll g -> GrowthCodec.size(g);
            case Admission a -> GrowthCodec.size(a);
            case SeedProof _ -> FRAME_HEADER_BYTES + PROOF_BYTES;
            case RenewRequest r -> RenewalCodec.size(r);
            case Renewed r -> RenewalCodec.size(r);
        };
    }

    /** A certificate count and the certificates, each with its u16 length. */
    static long chainSize(List<byte[]> chain) {
        long size = 1;
        for (byte[] c : chain) {
            size += 2 + c.length;
        }
        return size;
    }

    /**
     * The bytes a RENEW_REQUEST's proof covers: its body after the proof, as encoded.
     *
     * @param certificate the DER of the leaf to renew, at most 65535 bytes
     * @param csr the DER of the CSR, at most 65535 bytes
     * @return the certificate and the CSR, each after its u16 length
     */
    public static byte[] renewProofInput(byte[] certificate, byte[] csr) {
        var b = java.nio.ByteBuffer.allocate(4 + certificate.length + csr.length)
                .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) certificate.length).put(certificate).putShort((short) csr.length).put(csr);
        return b.array();
    }

    static long entriesSize(List<PeerTable.Entry> entries) {
        long size = 0;
        for (PeerTable.Entry e : entries) {
            size += 4 + 1 + e.memberId().length() + addressSize(e.quicAddress()) + addressSize(e.bulkAddress());
        }
        return size;
    }

    /** The bytes a GROW_POLL's proof covers: its body after the proof, as encoded. */
    public static byte[] pollProofInput(int max, int communicator, int generation, int[] members) {
        var b = java.nio.ByteBuffer.allocate(16 + 4 * members.length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.putInt(max).putInt(communicator).putInt(generation).putInt(members.length);
        for (int m : members) {
            b.putInt(m);
        }
        return b.array();
    }

    /** Writes the body of a valid message at its offset in {@code dst} (type and length are written by the caller). */
    static void encodeBody(EnrolmentMessage m, MemorySegment dst) {
        var w = new EnrolmentCursor.Writer(dst, FRAME_HEADER_BYTES);
        switch (m) {
            case JoinChallenge c -> w.bytes(c.nonce());
            case SeedProof p -> w.bytes(p.proof());
            case JoinRequest r -> {
                w.bytes(r.proof());
                w.i32(r.requestedRank());
                byte[] csr = r.csr();
                w.u16(csr.length);
                w.bytes(csr);
                w.address(r.quicAddress());
                w.address(r.bulkAddress());
            }
            case JoinAccepted a -> {
                w.i32(a.rank());
                w.i32(a.worldSize());
                w.u8(a.memberId().length());
                w.bytes(a.memberId().getBytes(StandardCharsets.US_ASCII));
                writeChain(w, a.certChain());
            }
            case RenewRequest r -> RenewalCodec.encode(r, w);
            case Renewed r -> RenewalCodec.encode(r, w);
            case JoinRefused r -> {
                byte[] text = r.reason().getBytes(StandardCharsets.UTF_8);
                w.u8(r.code().code());
                w.u16(text.length);
                w.bytes(text);
            }
            case PeerTable t -> writeEntries(w, t.entries());
            case GrowPoll g -> GrowthCodec.encode(g, w);
            case Admission a -> GrowthCodec.encode(a, w);
        }
    }

    static void writeChain(EnrolmentCursor.Writer w, List<byte[]> chain) {
        w.u8(chain.size());
        for (byte[] c : chain) {
            w.u16(c.length);
            w.bytes(c);
        }
    }

    static void writeEntries(EnrolmentCursor.Writer w, List<PeerTable.Entry> entries) {
        w.i32(entries.size());
        for (PeerTable.Entry e : entries) {
            w.i32(e.rank());
            w.u8(e.memberId().length());
            w.bytes(e.memberId().getBytes(StandardCharsets.US_ASCII));
            w.address(e.quicAddress());
            w.address(e.bulkAddress());
        }
    }

    // ---------------------------------------------------------------- decode

    /** Decodes the body of a frame whose length, type and flags {@link MessageCodec} has checked. */
    static EnrolmentMessage decode(int peer, MessageType type, MemorySegment frame) {
        var r = new EnrolmentCursor.Reader(peer, type, frame);
        EnrolmentMessage m = switch (type) {
            case JOIN_CHALLENGE -> new JoinChallenge(r.bytes(NONCE_BYTES, "nonce"));
            case SEED_PROOF -> new SeedProof(r.bytes(PROOF_BYTES, "proof"));
            case JOIN_REQUEST, ELASTIC_JOIN_REQUEST -> {
                byte[] proof = r.bytes(PROOF_BYTES, "proof");
                int rank = r.i32();
                byte[] csr = r.bytes(r.length(r.u16(), 1, MAX_CSR_BYTES, "CSR"), "CSR");
                yield new JoinRequest(proof, rank, csr, r.address("QUIC address"), r.address("bulk address"),
                        type == MessageType.ELASTIC_JOIN_REQUEST);
            }
            case GROW_POLL -> GrowthCodec.decodePoll(r, peer, type);
            case ADMISSION -> GrowthCodec.decodeAdmission(r, peer, type);
            case JOIN_ACCEPTED -> {
                int rank = r.i32();
                int worldSize = r.i32();
                String id = r.memberId();
                yield new JoinAccepted(rank, worldSize, id, chain(r));
            }
            case RENEW_REQUEST -> RenewalCodec.decodeRequest(r);
            case RENEWED -> RenewalCodec.decodeRenewed(r);
            case JOIN_REFUSED -> {
                int code = r.u8();
                JoinRefusal refusal = JoinRefusal.fromCode(code);
                if (refusal == null) {
                    throw MessageCodec.error(peer, "unknown JOIN_REFUSED code " + String.format("0x%02x", code)
                            + " from " + MessageCodec.source(peer));
                }
                yield new JoinRefused(refusal, r.utf8(r.length(r.u16(), 0, MAX_TEXT_BYTES, "reason"), "reason"));
            }
            case PEER_TABLE -> new PeerTable(entries(r, peer, type, 1));
            default -> throw new IllegalArgumentException(type + " is not an enrolment message type");
        };
        r.requireEnd();
        return m;
    }

    /** A certificate count (1 to {@link #MAX_CHAIN_CERTS}), then that many certificates, each with its length. */
    static List<byte[]> chain(EnrolmentCursor.Reader r) {
        int count = r.length(r.u8(), 1, MAX_CHAIN_CERTS, "certificate count");
        var chain = new ArrayList<byte[]>(count);
        for (int i = 0; i < count; i++) {
            chain.add(r.bytes(r.length(r.u16(), 1, MAX_CERT_BYTES, "certificate"), "certificate"));
        }
        return chain;
    }

    /** A count, bounded by the bytes present before anything is allocated, then that many entries. */
    static List<PeerTable.Entry> entries(EnrolmentCursor.Reader r, int peer, MessageType type, int min) {
        long count = Integer.toUnsignedLong(r.i32());
        if (count < min || count > r.remaining() / MIN_TABLE_ENTRY_BYTES) {
            throw MessageCodec.error(peer, type + " from " + MessageCodec.source(peer) + " claims "
                    + count + " entries; its " + r.remaining() + " remaining bytes hold between " + min + " and "
                    + r.remaining() / MIN_TABLE_ENTRY_BYTES);
        }
        var entries = new ArrayList<PeerTable.Entry>((int) count);
        for (long i = 0; i < count; i++) {
            entries.add(new PeerTable.Entry(r.i32(), r.memberId(), r.address("QUIC address"),
                    r.address("bulk address")));
        }
        return entries;
    }

    // ---------------------------------------------------------------- validation

    /** What is wrong with a message's fields, or null if it may go on the wire (see {@link MessageCodec}). */
    static String problem(EnrolmentMessage m) {
        return switch (m) {
            case JoinChallenge c -> c.nonce() == null || c.nonce().length != NONCE_BYTES
                    ? "nonce must have " + NONCE_BYTES + " bytes" : null;
            case SeedProof p -> p.proof() == null || p.proof().length != PROOF_BYTES
                    ? "proof must have " + PROOF_BYTES + " bytes" : null;
            case JoinRequest r -> {
                if (r.proof() == null || r.proof().length != PROOF_BYTES) {
                    yield "proof must have " + PROOF_BYTES + " bytes";
                } else if (r.requestedRank() < -1) {
                    yield "requestedRank " + r.requestedRank() + " is less than -1";
                } else if (r.elastic() && r.requestedRank() != -1) {
                    yield "an elastic join cannot request a rank (requestedRank " + r.requestedRank() + ")";
                } else if (r.csr() == null || r.csr().length < 1 || r.csr().length > MAX_CSR_BYTES) {
                    yield "CSR must have 1 to " + MAX_CSR_BYTES + " bytes";
                } else if (r.quicAddress() == null) {
                    yield "quicAddress is null";
                }
                String a = addressProblem("quicAddress", r.quicAddress());
                yield a != null ? a : addressProblem("bulkAddress", r.bulkAddress());
            }
            case JoinAccepted a -> {
                if (a.worldSize() < 1) {
                    yield "worldSize " + a.worldSize() + " is less than 1";
                } else if (a.rank() < 0 || a.rank() >= a.worldSize()) {
                    yield "rank " + a.rank() + " is not in [0, " + a.worldSize() + ")";
                }
                String c = chainProblem(a.certChain());
                yield c != null ? c : memberIdProblem(a.memberId());
            }
            case Renewed r -> RenewalCodec.problem(r);
            case RenewRequest r -> RenewalCodec.problem(r);
            case JoinRefused r -> {
                if (r.code() == null) {
                    yield "code is null";
                } else if (r.reason() == null) {
                    yield "reason is null";
                } else if (!StandardCharsets.UTF_8.newEncoder().canEncode(r.reason())) {
                    yield "reason contains an unpaired surrogate";
                }
                int bytes = r.reason().getBytes(StandardCharsets.UTF_8).length;
                yield bytes > MAX_TEXT_BYTES
                        ? "reason of " + bytes + " UTF-8 bytes exceeds the maximum of " + MAX_TEXT_BYTES : null;
            }
            case PeerTable t -> t.entries() == null || t.entries().isEmpty() ? "peer table has no entries"
                    : entriesProblem(t.entries());
            case GrowPoll g -> GrowthCodec.problem(g);
            case Admission a -> GrowthCodec.problem(a);
        };
    }

    static String chainProblem(List<byte[]> chain) {
        if (chain == null || chain.isEmpty() || chain.size() > MAX_CHAIN_CERTS) {
            return "certificate chain must have 1 to " + MAX_CHAIN_CERTS + " certificates";
        }
        for (byte[] c : chain) {
            if (c == null || c.length < 1 || c.length > MAX_CERT_BYTES) {
                return "a certificate must have 1 to " + MAX_CERT_BYTES + " bytes";
            }
        }
        return null;
    }

    /** Entries in strictly increasing rank order (a sparse table after failures or growth), distinct ids. */
    static String entriesProblem(List<PeerTable.Entry> entries) {
        var ids = new HashSet<String>();
        int previous = -1;
        for (int i = 0; i < entries.size(); i++) {
            PeerTable.Entry e = entries.get(i);
            if (e == null) {
                return "entry " + i + " is null";
            } else if (e.rank() <= previous) {
                return "entry " + i + " has rank " + e.rank() + "; entries must be in increasing rank order from 0";
            }
            previous = e.rank();
            if (e.quicAddress() == null) {
                return "rank " + e.rank() + " has no QUIC address";
            }
            String p = memberIdProblem(e.memberId());
            if (p == null) {
                p = addressProblem("rank " + e.rank() + " QUIC address", e.quicAddress());
            }
            if (p == null) {
                p = addressProblem("rank " + e.rank() + " bulk address", e.bulkAddress());
            }
            if (p != null) {
                return p;
            }
            if (!ids.add(e.memberId())) {
                return "member id " + e.memberId() + " appears twice";
            }
        }
        return null;
    }

    /**
     * What is wrong with a member id, or null if it is valid: 1 to {@link #MAX_MEMBER_ID_BYTES} characters out of
     * lowercase ASCII letters, digits, '-' and '.'. The one rule for every component that names members.
     */
    public static String memberIdProblem(String id) {
        if (id == null || id.isEmpty() || id.length() > MAX_MEMBER_ID_BYTES) {
            return "member id must have 1 to " + MAX_MEMBER_ID_BYTES + " characters";
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.')) {
                return "member id has character " + String.format("0x%02x", (int) c)
                        + "; only lowercase letters, digits, '-' and '.' are allowed";
            }
        }
        return null;
    }

    private static String addressProblem(String what, InetSocketAddress a) {
        if (a == null) {
            return null;
        } else if (a.isUnresolved() || a.getAddress() == null) {
            return what + " " + a + " is unresolved; only IP addresses travel";
        } else if (a.getPort() == 0) {
            return what + " " + a + " has port 0";
        }
        return null;
    }

    private static int addressSize(InetSocketAddress a) {
        if (a == null) {
            return 1;
        }
        return a.getAddress() instanceof Inet4Address ? 1 + 4 + 2 : 1 + 16 + 2;
    }
}
