package io.nexar.internal.protocol;

import static io.nexar.internal.protocol.EnrolmentCodec.MAX_MEMBERS;
import static io.nexar.internal.protocol.EnrolmentCodec.POLL_MAX_OFFSET;
import static io.nexar.internal.protocol.EnrolmentCodec.PROOF_BYTES;
import static io.nexar.internal.protocol.WireFormat.FRAME_HEADER_BYTES;

import io.nexar.internal.protocol.EnrolmentMessage.Admission;
import io.nexar.internal.protocol.EnrolmentMessage.GrowPoll;
import java.util.Arrays;
import java.util.HashSet;

/**
 * The bodies of the enrolment frames that grow a running cluster: GROW_POLL (its rank 0 asks the seed to admit
 * waiting workers) and ADMISSION (the growth, to each admitted worker and the polling member); layouts in
 * {@link EnrolmentCodec}. {@link EnrolmentCodec} dispatches here by type; each message has its size, its body encoder,
 * its decoder and its field rules. Stateless.
 */
final class GrowthCodec {
    private GrowthCodec() {
    }

    static long size(GrowPoll g) {
        return POLL_MAX_OFFSET + 16L + 4L * g.members().length;
    }

    static long size(Admission a) {
        return FRAME_HEADER_BYTES + 12L + 4L * a.members().length + 4 + EnrolmentCodec.entriesSize(a.newcomers());
    }

    static void encode(GrowPoll g, EnrolmentCursor.Writer w) {
        w.bytes(g.proof());
        w.bytes(EnrolmentCodec.pollProofInput(g.max(), g.communicator(), g.generation(), g.members()));
    }

    static void encode(Admission a, EnrolmentCursor.Writer w) {
        w.i32(a.communicator());
        w.i32(a.generation());
        w.i32(a.members().length);
        for (int member : a.members()) {
            w.i32(member);
        }
        EnrolmentCodec.writeEntries(w, a.newcomers());
    }

    static GrowPoll decodePoll(EnrolmentCursor.Reader r, int peer, MessageType type) {
        byte[] proof = r.bytes(PROOF_BYTES, "proof");
        int max = r.i32();
        int communicator = r.i32();
        int generation = r.i32();
        return new GrowPoll(proof, max, communicator, generation, ranks(r, peer, type));
    }

    static Admission decodeAdmission(EnrolmentCursor.Reader r, int peer, MessageType type) {
        int communicator = r.i32();
        int generation = r.i32();
        int[] members = ranks(r, peer, type);
        return new Admission(communicator, generation, members, EnrolmentCodec.entries(r, peer, type, 0));
    }

    /**
     * A count of world ranks (1 to {@link EnrolmentCodec#MAX_MEMBERS}, bounded by the bytes present), then the ranks.
     */
    private static int[] ranks(EnrolmentCursor.Reader r, int peer, MessageType type) {
        long count = Integer.toUnsignedLong(r.i32());
        if (count < 1 || count > MAX_MEMBERS || count > r.remaining() / 4) {
            throw MessageCodec.error(peer, type + " from " + MessageCodec.source(peer) + " claims " + count
                    + " members; its " + r.remaining() + " remaining bytes hold at most " + r.remaining() / 4);
        }
        int[] out = new int[(int) count];
        for (int i = 0; i < out.length; i++) {
            out[i] = r.i32();
        }
        return out;
    }

    static String problem(GrowPoll g) {
        if (g.proof() == null || g.proof().length != PROOF_BYTES) {
            return "proof must have " + PROOF_BYTES + " bytes";
        } else if (g.max() < 1) {
            return "max " + g.max() + " is less than 1";
        }
        return membersProblem(g.members(), g.generation());
    }

    static String problem(Admission a) {
        String p = membersProblem(a.members(), a.generation());
        if (p != null || a.newcomers() == null) {
            return p != null ? p : "newcomers is null";
        }
        int highest = Arrays.stream(a.members()).max().orElse(-1);
        if (!a.newcomers().isEmpty() && a.newcomers().getFirst() != null
                && a.newcomers().getFirst().rank() <= highest) {
            return "newcomer rank " + a.newcomers().getFirst().rank() + " is not above every member's ("
                    + highest + ")";
        }
        return EnrolmentCodec.entriesProblem(a.newcomers());
    }

    private static String membersProblem(int[] members, int generation) {
        if (members == null || members.length < 1 || members.length > MAX_MEMBERS) {
            return "members must list 1 to " + MAX_MEMBERS + " world ranks";
        } else if (generation < 1) {
            return "generation " + generation + " is less than 1";
        }
        var seen = new HashSet<Integer>();
        for (int m : members) {
            if (m < 0 || !seen.add(m)) {
                return "member world rank " + m + " is negative or listed twice";
            }
        }
        return null;
    }
}
