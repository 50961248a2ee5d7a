package io.nexar.internal.protocol;

import static io.nexar.internal.protocol.EnrolmentCodec.MAX_CERT_BYTES;
import static io.nexar.internal.protocol.EnrolmentCodec.MAX_CSR_BYTES;
import static io.nexar.internal.protocol.EnrolmentCodec.PROOF_BYTES;
import static io.nexar.internal.protocol.EnrolmentCodec.RENEW_CERT_LENGTH_OFFSET;
import static io.nexar.internal.protocol.WireFormat.FRAME_HEADER_BYTES;

import io.nexar.internal.protocol.EnrolmentMessage.RenewRequest;
import io.nexar.internal.protocol.EnrolmentMessage.Renewed;

/**
 * The bodies of the certificate-renewal frames of enrolment: RENEW_REQUEST (a member asks the seed to renew its
 * certificate, after the seed's JOIN_CHALLENGE) and RENEWED (the renewed chain); layouts in {@link EnrolmentCodec}.
 * {@link EnrolmentCodec} dispatches here by type; each message has its size, its body encoder, its decoder and its
 * field rules. Stateless.
 */
final class RenewalCodec {
    private RenewalCodec() {
    }

    static long size(RenewRequest r) {
        return RENEW_CERT_LENGTH_OFFSET + 2L + r.certificate().length + 2 + r.csr().length;
    }

    static long size(Renewed r) {
        return FRAME_HEADER_BYTES + EnrolmentCodec.chainSize(r.certChain());
    }

    static void encode(RenewRequest r, EnrolmentCursor.Writer w) {
        w.bytes(r.proof());
        w.bytes(EnrolmentCodec.renewProofInput(r.certificate(), r.csr()));
    }

    static void encode(Renewed r, EnrolmentCursor.Writer w) {
        EnrolmentCodec.writeChain(w, r.certChain());
    }

    static RenewRequest decodeRequest(EnrolmentCursor.Reader r) {
        byte[] proof = r.bytes(PROOF_BYTES, "proof");
        byte[] cert = r.bytes(r.length(r.u16(), 1, MAX_CERT_BYTES, "certificate"), "certificate");
        return new RenewRequest(proof, cert, r.bytes(r.length(r.u16(), 1, MAX_CSR_BYTES, "CSR"), "CSR"));
    }

    static Renewed decodeRenewed(EnrolmentCursor.Reader r) {
        return new Renewed(EnrolmentCodec.chain(r));
    }

    static String problem(RenewRequest r) {
        if (r.proof() == null || r.proof().length != PROOF_BYTES) {
            return "proof must have " + PROOF_BYTES + " bytes";
        } else if (r.certificate() == null || r.certificate().length < 1
                || r.certificate().length > MAX_CERT_BYTES) {
            return "certificate must have 1 to " + MAX_CERT_BYTES + " bytes";
        }
        return r.csr() == null || r.csr().length < 1 || r.csr().length > MAX_CSR_BYTES
                ? "CSR must have 1 to " + MAX_CSR_BYTES + " bytes" : null;
    }

    static String problem(Renewed r) {
        return EnrolmentCodec.chainProblem(r.certChain());
    }
}
