package io.nexar.internal.protocol;

/**
 * The explicit one-byte type code of every message on the wire. Codes are never reused; docs/protocol.md lists
 * the body layout of each.
 */
public enum MessageType {
    /** {@link Message.Hello}: first frame in each direction of a connection. */
    HELLO(0x01),
    /** {@link Message.Data}: one chunk of a point-to-point message. */
    DATA(0x10),
    /** {@link Message.Collective}: one chunk of one step of a collective schedule. */
    COLLECTIVE(0x11),
    /** {@link Message.CollectiveAbort}: the sender failed a collective operation; fail it too. */
    COLLECTIVE_ABORT(0x12),
    /** {@link Message.Agree}: one step of the agreement on a communicator's failed set (recovery). */
    AGREE(0x13),
    /** {@link Message.Relay}: a frame for a rank that is not a neighbour, travelling hop by hop (sparse topologies). */
    RELAY(0x14),
    /** {@link Message.PeerDown}: the sender lost its link to a rank (sparse topologies: tells the non-neighbours). */
    PEER_DOWN(0x15),
    /** {@link Message.Quiesce}: a step of the close of a sparse world, between neighbours only. */
    QUIESCE(0x16),
    /** {@link Message.Heartbeat}: liveness signal. */
    HEARTBEAT(0x20),
    /** {@link Message.Status}: a hang report's question "what are you doing?" or its answer. */
    STATUS(0x21),
    /** {@link Message.Goodbye}: the sender is leaving. */
    GOODBYE(0x2F),
    /** {@link Message.RpcRequest}: a remote call of a registered function (RPC lane). */
    RPC_REQUEST(0x30),
    /** {@link Message.RpcResponse}: how a remote call ended, with its response or failure (RPC lane). */
    RPC_RESPONSE(0x31),
    /** {@link Message.RpcCancel}: the caller gave up on a call (cancelled or timed out; RPC lane). */
    RPC_CANCEL(0x32),

    // Enrolment (0x40-0x4F): only on the seed's TLS enrolment connection, never on a peer link; see EnrolmentCodec.
    /** {@link EnrolmentMessage.JoinChallenge}: the seed's nonce, first frame of an enrolment connection. */
    JOIN_CHALLENGE(0x40),
    /** {@link EnrolmentMessage.JoinRequest}: a worker's proof of the join token, CSR and addresses. */
    JOIN_REQUEST(0x41),
    /** {@link EnrolmentMessage.JoinAccepted}: the worker's rank, world size, member id and certificate chain. */
    JOIN_ACCEPTED(0x42),
    /** {@link EnrolmentMessage.JoinRefused}: the seed refused the join, with a reason. */
    JOIN_REFUSED(0x43),
    /** {@link EnrolmentMessage.PeerTable}: every rank's member id and addresses, once the cluster formed. */
    PEER_TABLE(0x44),
    /** {@link EnrolmentMessage.JoinRequest} with {@code elastic}: a worker asks to join the running cluster. */
    ELASTIC_JOIN_REQUEST(0x45),
    /** {@link EnrolmentMessage.GrowPoll}: rank 0 of a running cluster asks the seed for the waiting workers. */
    GROW_POLL(0x46),
    /** {@link EnrolmentMessage.Admission}: the grown world, to the admitted workers and the polling member. */
    ADMISSION(0x47),
    /** {@link EnrolmentMessage.SeedProof}: the seed proves the token to a worker that pins no CA (token-only join). */
    SEED_PROOF(0x48),
    /** {@link EnrolmentMessage.RenewRequest}: a member asks the seed to renew its certificate for the same key. */
    RENEW_REQUEST(0x49),
    /** {@link EnrolmentMessage.Renewed}: the seed's answer to a RENEW_REQUEST, the renewed certificate chain. */
    RENEWED(0x4A);

    private static final MessageType[] BY_CODE = new MessageType[256];

    static {
        for (MessageType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;

    MessageType(int code) {
        this.code = code;
    }

    /** The wire code, 0..255. */
    public int code() {
        return code;
    }

    /** The type for a wire code, or null if the code is unknown. */
    public static MessageType fromCode(int code) {
        return code >= 0 && code < 256 ? BY_CODE[code] : null;
    }
}
