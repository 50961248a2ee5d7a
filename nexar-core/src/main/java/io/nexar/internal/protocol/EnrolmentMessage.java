package io.nexar.internal.protocol;

import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;

/**
 * The messages of cluster enrolment, exchanged once per worker on the seed's TLS connection, never on a peer link
 * (docs/design.md section 4, docs/protocol.md section 7):
 *
 * <pre>
 *   seed                                  worker
 *    | -- JOIN_CHALLENGE(nonce) ---------> |
 *    | <--------- JOIN_REQUEST(proof, rank, csr, addresses)
 *    | -- SEED_PROOF(proof) -------------> |   (only to a token-only worker, whose proof is bound to the session)
 *    | -- JOIN_ACCEPTED(rank, world, id, chain) or JOIN_REFUSED(code, reason) --> |
 *    | -- PEER_TABLE(every rank's id and addresses) --> |   (once all workers joined)
 *
 *   elastic: a worker sends ELASTIC_JOIN_REQUEST instead of JOIN_REQUEST and waits; when rank 0 of the running
 *   cluster sends GROW_POLL (after its own JOIN_CHALLENGE), the seed admits the waiting workers: each gets
 *   JOIN_ACCEPTED, PEER_TABLE (the members and newcomers) and ADMISSION; rank 0 gets ADMISSION.
 *
 *   renewal: a member sends RENEW_REQUEST (after its own JOIN_CHALLENGE) with its current certificate and a CSR
 *   for the same key; the seed answers RENEWED(chain) or JOIN_REFUSED.
 * </pre>
 *
 * Byte arrays are copied on construction; the records compare by content. {@link EnrolmentCodec} encodes and
 * validates them; nothing here is checked until then.
 */
public sealed interface EnrolmentMessage extends Message permits EnrolmentMessage.JoinChallenge,
        EnrolmentMessage.JoinRequest, EnrolmentMessage.JoinAccepted, EnrolmentMessage.JoinRefused,
        EnrolmentMessage.PeerTable, EnrolmentMessage.GrowPoll, EnrolmentMessage.Admission,
        EnrolmentMessage.SeedProof, EnrolmentMessage.RenewRequest, EnrolmentMessage.Renewed {

    /**
     * The seed's proof of the join token to a worker that has no CA fingerprint to authenticate it by (a token-only
     * join string): sent after the worker's JOIN_REQUEST when that request carried a channel-bound proof, before
     * JOIN_ACCEPTED. docs/security.md gives the argument; docs/protocol.md section 7.10 the bytes.
     *
     * @param proof {@code HMAC-SHA256(K, "nexar seed proof v1" || exporter || nonce || SHA-256(csr) ||
     *              SHA-256(CA certificate))}, exactly {@link EnrolmentCodec#PROOF_BYTES}
     */
    record SeedProof(byte[] proof) implements EnrolmentMessage {
        public SeedProof {
            proof = copy(proof);
        }

        /** A copy of the proof. */
        @Override
        public byte[] proof() {
            return copy(proof);
        }

        @Override
        public MessageType type() {
            return MessageType.SEED_PROOF;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof SeedProof p && Arrays.equals(proof, p.proof);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(proof);
        }

        @Override
        public String toString() {
            return "SeedProof[proof=" + hex(proof) + "]";
        }
    }

    /**
     * The seed's first message on an enrolment connection: a fresh random nonce that the worker's proof must cover,
     * so that a proof captured on one connection is useless on another.
     *
     * @param nonce exactly {@link EnrolmentCodec#NONCE_BYTES} random bytes
     */
    record JoinChallenge(byte[] nonce) implements EnrolmentMessage {
        public JoinChallenge {
            nonce = copy(nonce);
        }

        /** A copy of the nonce. */
        @Override
        public byte[] nonce() {
            return copy(nonce);
        }

        @Override
        public MessageType type() {
            return MessageType.JOIN_CHALLENGE;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof JoinChallenge c && Arrays.equals(nonce, c.nonce);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(nonce);
        }

        @Override
        public String toString() {
            return "JoinChallenge[nonce=" + hex(nonce) + "]";
        }
    }

    /**
     * The worker's request to join.
     *
     * @param proof {@code HMAC-SHA256(token, nonce || SHA-256(csr))}, exactly {@link EnrolmentCodec#PROOF_BYTES}
     * @param requestedRank the rank the worker asks for, or -1 for any
     * @param csr the DER of a PKCS#10 request for the worker's own key, 1 to {@link EnrolmentCodec#MAX_CSR_BYTES}
     * @param quicAddress where the worker listens for QUIC (resolved, port 1-65535)
     * @param bulkAddress where the worker listens for the TCP bulk lane, or null if it has none
     * @param elastic true to join the running cluster at the members' next grow() (type ELASTIC_JOIN_REQUEST,
     *                same body; the requested rank must then be -1)
     */
    record JoinRequest(byte[] proof, int requestedRank, byte[] csr, InetSocketAddress quicAddress,
                       InetSocketAddress bulkAddress, boolean elastic) implements EnrolmentMessage {
        public JoinRequest {
            proof = copy(proof);
            csr = copy(csr);
        }

        /** A request to join a forming cluster. */
        public JoinRequest(byte[] proof, int requestedRank, byte[] csr, InetSocketAddress quicAddress,
                           InetSocketAddress bulkAddress) {
            this(proof, requestedRank, csr, quicAddress, bulkAddress, false);
        }

        /** A copy of the proof. */
        @Override
        public byte[] proof() {
            return copy(proof);
        }

        /** A copy of the CSR. */
        @Override
        public byte[] csr() {
            return copy(csr);
        }

        @Override
        public MessageType type() {
            return elastic ? MessageType.ELASTIC_JOIN_REQUEST : MessageType.JOIN_REQUEST;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof JoinRequest r && elastic == r.elastic && Arrays.equals(proof, r.proof)
                    && requestedRank == r.requestedRank
                    && Arrays.equals(csr, r.csr) && Objects.equals(quicAddress, r.quicAddress)
                    && Objects.equals(bulkAddress, r.bulkAddress);
        }

        @Override
        public int hashCode() {
            return Objects.hash(Arrays.hashCode(proof), requestedRank, Arrays.hashCode(csr), quicAddress,
                    bulkAddress, elastic);
        }

        @Override
        public String toString() {
            return "JoinRequest[proof=" + hex(proof) + ", requestedRank=" + requestedRank + ", csr="
                    + (csr == null ? "null" : csr.length + " bytes") + ", quicAddress=" + quicAddress
                    + ", bulkAddress=" + bulkAddress + (elastic ? ", elastic" : "") + "]";
        }
    }

    /**
     * The seed accepted the worker: its rank, the world size, the member id its certificate names, and the chain.
     *
     * @param rank the assigned rank, in {@code [0, worldSize)}
     * @param worldSize the number of ranks, {@code >= 1}
     * @param memberId the identity the certificate names (lowercase letters, digits, '-', '.'; 1-64 characters)
     * @param certChain DER certificates, leaf first, then the cluster CA; 1 to {@link EnrolmentCodec#MAX_CHAIN_CERTS}
     */
    record JoinAccepted(int rank, int worldSize, String memberId, List<byte[]> certChain)
            implements EnrolmentMessage {
        public JoinAccepted {
            certChain = copies(certChain);
        }

        /** Copies of the DER certificates. */
        @Override
        public List<byte[]> certChain() {
            return copies(certChain);
        }

        @Override
        public MessageType type() {
            return MessageType.JOIN_ACCEPTED;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof JoinAccepted a && rank == a.rank && worldSize == a.worldSize
                    && Objects.equals(memberId, a.memberId) && sameChain(certChain, a.certChain);
        }

        @Override
        public int hashCode() {
            return 31 * Objects.hash(rank, worldSize, memberId) + chainHash(certChain);
        }

        @Override
        public String toString() {
            return "JoinAccepted[rank=" + rank + ", worldSize=" + worldSize + ", memberId=" + memberId
                    + ", certChain=" + (certChain == null ? "null" : certChain.size() + " certificates") + "]";
        }
    }

    /**
     * The seed refused the worker; the connection closes after it.
     *
     * @param code why, as a code
     * @param reason a human-readable explanation, at most {@link WireFormat#MAX_TEXT_BYTES} bytes of UTF-8
     */
    record JoinRefused(JoinRefusal code, String reason) implements EnrolmentMessage {
        @Override
        public MessageType type() {
            return MessageType.JOIN_REFUSED;
        }
    }

    /**
     * Every rank's identity and addresses, sent to each worker once the cluster has formed.
     *
     * @param entries one per rank; entry {@code i} has rank {@code i}; at least one
     */
    record PeerTable(List<Entry> entries) implements EnrolmentMessage {
        public PeerTable {
            entries = entries == null ? null : entries.stream().toList();
        }

        @Override
        public MessageType type() {
            return MessageType.PEER_TABLE;
        }

        /**
         * One rank of the table.
         *
         * @param rank the rank
         * @param memberId the identity its certificate names
         * @param quicAddress its QUIC listen address (resolved)
         * @param bulkAddress its TCP bulk-lane address, or null if it has none
         */
        public record Entry(int rank, String memberId, InetSocketAddress quicAddress, InetSocketAddress bulkAddress) {
        }
    }

    /**
     * Rank 0 of a running cluster asks the seed to admit up to {@code max} waiting workers into the world that
     * {@code members} form now.
     *
     * @param proof {@code HMAC-SHA256(token, nonce || SHA-256(the body after the proof))}
     * @param max most workers to admit, {@code >= 1}
     * @param communicator the id the grown world communicator will have
     * @param generation its generation
     * @param members the world ranks of the current members, in communicator order, at least one
     */
    record GrowPoll(byte[] proof, int max, int communicator, int generation, int[] members)
            implements EnrolmentMessage {
        public GrowPoll {
            proof = copy(proof);
            members = members == null ? null : members.clone();
        }

        /** A copy of the proof. */
        @Override
        public byte[] proof() {
            return copy(proof);
        }

        /** A copy of the members. */
        @Override
        public int[] members() {
            return members == null ? null : members.clone();
        }

        @Override
        public MessageType type() {
            return MessageType.GROW_POLL;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof GrowPoll g && Arrays.equals(proof, g.proof) && max == g.max
                    && communicator == g.communicator && generation == g.generation
                    && Arrays.equals(members, g.members);
        }

        @Override
        public int hashCode() {
            return Objects.hash(Arrays.hashCode(proof), max, communicator, generation, Arrays.hashCode(members));
        }

        @Override
        public String toString() {
            return "GrowPoll[max=" + max + ", communicator=" + communicator + ", generation=" + generation
                    + ", members=" + Arrays.toString(members) + "]";
        }
    }

    /**
     * A growth of the running cluster: the world communicator {@code members} form becomes {@code communicator}
     * with the {@code newcomers} appended. Sent to every admitted worker (after its JOIN_ACCEPTED and PEER_TABLE)
     * and, as the answer to its GROW_POLL, to the polling member ({@code newcomers} may then be empty).
     *
     * @param communicator the grown world communicator's id
     * @param generation its generation
     * @param members the world ranks of the members before the growth, in communicator order, at least one
     * @param newcomers the admitted workers, in rank order, each rank above every member's
     */
    record Admission(int communicator, int generation, int[] members, List<PeerTable.Entry> newcomers)
            implements EnrolmentMessage {
        public Admission {
            members = members == null ? null : members.clone();
            newcomers = newcomers == null ? null : newcomers.stream().toList();
        }

        /** A copy of the members. */
        @Override
        public int[] members() {
            return members == null ? null : members.clone();
        }

        @Override
        public MessageType type() {
            return MessageType.ADMISSION;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Admission a && communicator == a.communicator && generation == a.generation
                    && Arrays.equals(members, a.members) && Objects.equals(newcomers, a.newcomers);
        }

        @Override
        public int hashCode() {
            return Objects.hash(communicator, generation, Arrays.hashCode(members), newcomers);
        }

        @Override
        public String toString() {
            return "Admission[communicator=" + communicator + ", generation=" + generation + ", members="
                    + Arrays.toString(members) + ", newcomers=" + newcomers + "]";
        }
    }

    /**
     * A member's request to renew its certificate before it expires, sent in place of a JOIN_REQUEST after the
     * seed's JOIN_CHALLENGE. The seed issues a certificate for the same member id and the same key, or refuses.
     *
     * @param proof {@code HMAC-SHA256(token, nonce || SHA-256(the body after the proof))}
     * @param certificate the DER of the member's current leaf certificate (issued by the cluster CA, still valid)
     * @param csr the DER of a PKCS#10 CSR for the same public key, signed with the member's private key
     */
    record RenewRequest(byte[] proof, byte[] certificate, byte[] csr) implements EnrolmentMessage {
        public RenewRequest {
            proof = copy(proof);
            certificate = copy(certificate);
            csr = copy(csr);
        }

        /** A copy of the proof. */
        @Override
        public byte[] proof() {
            return copy(proof);
        }

        /** A copy of the current certificate's DER. */
        @Override
        public byte[] certificate() {
            return copy(certificate);
        }

        /** A copy of the CSR's DER. */
        @Override
        public byte[] csr() {
            return copy(csr);
        }

        @Override
        public MessageType type() {
            return MessageType.RENEW_REQUEST;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof RenewRequest r && Arrays.equals(proof, r.proof)
                    && Arrays.equals(certificate, r.certificate) && Arrays.equals(csr, r.csr);
        }

        @Override
        public int hashCode() {
            return Objects.hash(Arrays.hashCode(proof), Arrays.hashCode(certificate), Arrays.hashCode(csr));
        }

        @Override
        public String toString() {
            return "RenewRequest[certificate=" + (certificate == null ? null : certificate.length + " bytes")
                    + ", csr=" + (csr == null ? null : csr.length + " bytes") + "]";
        }
    }

    /**
     * The seed's answer to a {@link RenewRequest}: the renewed chain, leaf first (same member id, same key).
     *
     * @param certChain DER certificates, leaf first, ending with the cluster CA
     */
    record Renewed(List<byte[]> certChain) implements EnrolmentMessage {
        public Renewed {
            certChain = copies(certChain);
        }

        /** Copies of the certificates. */
        @Override
        public List<byte[]> certChain() {
            return copies(certChain);
        }

        @Override
        public MessageType type() {
            return MessageType.RENEWED;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Renewed r && sameChain(certChain, r.certChain);
        }

        @Override
        public int hashCode() {
            return chainHash(certChain);
        }

        @Override
        public String toString() {
            return "Renewed[" + (certChain == null ? null : certChain.size() + " certificates") + "]";
        }
    }

    private static byte[] copy(byte[] b) {
        return b == null ? null : b.clone();
    }

    /** Copies of the certificates of a chain (null for null): records keep and hand out their own. */
    private static List<byte[]> copies(List<byte[]> chain) {
        return chain == null ? null : chain.stream().map(EnrolmentMessage::copy).toList();
    }

    /** True if both chains are null, or hold equal certificates in the same order. */
    private static boolean sameChain(List<byte[]> a, List<byte[]> b) {
        if (a == null || b == null || a.size() != b.size()) {
            return a == b;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!Arrays.equals(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }

    /** A hash of a chain's certificates' contents (0 for null). */
    private static int chainHash(List<byte[]> chain) {
        int h = 0;
        for (byte[] c : chain == null ? List.<byte[]>of() : chain) {
            h = 31 * h + Arrays.hashCode(c);
        }
        return h;
    }

    private static String hex(byte[] b) {
        return b == null ? "null" : HexFormat.of().formatHex(b);
    }
}
