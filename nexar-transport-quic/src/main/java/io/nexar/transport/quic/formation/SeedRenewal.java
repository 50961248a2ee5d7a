package io.nexar.transport.quic.formation;

import io.nexar.ProtocolException;
import io.nexar.internal.protocol.EnrolmentCodec;
import io.nexar.internal.protocol.EnrolmentMessage.JoinChallenge;
import io.nexar.internal.protocol.EnrolmentMessage.JoinRefused;
import io.nexar.internal.protocol.EnrolmentMessage.RenewRequest;
import io.nexar.internal.protocol.EnrolmentMessage.Renewed;
import io.nexar.internal.protocol.JoinRefusal;
import io.nexar.internal.protocol.Message;
import io.nexar.transport.quic.MemberCredentials;
import io.nexar.transport.quic.formation.FormationState.Refused;
import io.nexar.transport.quic.security.ClusterCa;
import io.nexar.transport.quic.security.JoinString;
import io.nexar.transport.quic.security.MemberKeys;
import io.nexar.transport.quic.security.PeerVerifier;
import io.nexar.transport.quic.security.PinnedCaTrustManager;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLSocket;

/**
 * Certificate renewal without restarting the job (docs/security.md section 6), both ends:
 *
 * <pre>
 *   member                                   seed
 *   TLS 1.3 handshake (the member pins the CA, as for a join; it presents no certificate)
 *     &lt;- JOIN_CHALLENGE(nonce)
 *     -&gt; RENEW_REQUEST(proof of the token over nonce and body, current leaf, CSR for the same key)
 *     &lt;- RENEWED(new chain: same member id, same key, cert.validity from now) or JOIN_REFUSED(code, reason)
 * </pre>
 *
 * The seed renews only a leaf its CA issued that is still valid (expiry, CA, identity: {@link PeerVerifier}), only
 * for the key that leaf certifies (the CSR's signature proves the requester holds it), and only for a requester that
 * knows the join token. So renewal never creates an identity: a stolen token renews nothing without the member's
 * private key, and a member excluded by recovery or shrink stays refused by the survivors' revocation lists.
 */
public final class SeedRenewal {

    private SeedRenewal() {
    }

    /**
     * Asks the seed of {@code joinString} to renew {@code current}'s certificate for the same key.
     *
     * @param joinString the join string with the CA pinned (a token-only one cannot authenticate the seed here)
     * @param current this member's credentials, whose leaf must still be valid
     * @param timeout bound on the connection and on each read
     * @return the credentials with the renewed chain (same key, member id and CA)
     * @throws IllegalStateException naming the seed and what failed: unreachable, refused, or an unusable answer
     */
    public static MemberCredentials renew(String joinString, MemberCredentials current, Duration timeout) {
        JoinString js = JoinString.parse(joinString);
        String seed = js.hostPort();
        var tm = new PinnedCaTrustManager(js.caFingerprint(), ClusterCa.SEED_MEMBER_ID);
        try (SSLSocket socket = WorkerEnrolment.open(js, tm, Math.max(1, timeout.toMillis()))) {
            var in = socket.getInputStream();
            var out = socket.getOutputStream();
            Message first = FrameIo.read(in, -1, EnrolmentCodec.MAX_ENROLMENT_FRAME_BYTES);
            if (!(first instanceof JoinChallenge challenge)) {
                throw failure(seed, current, "it sent " + first.type() + ", expected JOIN_CHALLENGE", null);
            }
            byte[] leaf = current.leaf().getEncoded();
            byte[] csr = MemberKeys.of(new KeyPair(current.leaf().getPublicKey(), current.privateKey()))
                    .csr(current.memberId());
            byte[] proof = js.token().proof(challenge.nonce(), EnrolmentCodec.renewProofInput(leaf, csr));
            FrameIo.write(out, new RenewRequest(proof, leaf, csr));
            Message answer = FrameIo.read(in, -1, EnrolmentCodec.MAX_ENROLMENT_FRAME_BYTES);
            socket.setSoTimeout(1000); // bounds close(), which waits for the seed's close_notify
            return switch (answer) {
                case Renewed r -> credentials(r, current, seed);
                case JoinRefused r -> throw failure(seed, current, "it refused: " + r.reason() + " (" + r.code()
                        + ")", null);
                default -> throw failure(seed, current, "it answered with " + answer.type(), null);
            };
        } catch (ProtocolException e) {
            throw failure(seed, current, "it violated the enrolment protocol: " + e.getMessage(), e);
        } catch (CertificateEncodingException e) {
            throw failure(seed, current, "the current certificate cannot be encoded: " + e.getMessage(), e);
        } catch (IOException e) {
            String why = tm.failure() != null ? tm.failure().getMessage() : e.toString();
            throw failure(seed, current, "it cannot be reached: " + why, e);
        }
    }

    /** The renewed chain, checked against the CA, the member id and the key before it replaces the current one. */
    private static MemberCredentials credentials(Renewed r, MemberCredentials current, String seed) {
        var chain = new ArrayList<X509Certificate>();
        try {
            var factory = CertificateFactory.getInstance("X.509");
            for (byte[] der : r.certChain()) {
                chain.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(der)));
            }
            new PeerVerifier(current.clusterCa()).verify(chain, current.memberId());
        } catch (GeneralSecurityException | ClassCastException e) {
            throw failure(seed, current, "it issued an unusable certificate: " + e.getMessage(), e);
        }
        if (!chain.getFirst().getPublicKey().equals(current.leaf().getPublicKey())) {
            throw failure(seed, current, "it issued a certificate for another key", null);
        }
        return new MemberCredentials(current.privateKey(), chain, current.clusterCa(), current.memberId());
    }

    private static IllegalStateException failure(String seed, MemberCredentials current, String why,
                                                 Throwable cause) {
        return new IllegalStateException("the seed at " + seed + " did not renew the certificate of member "
                + current.memberId() + ": " + why, cause);
    }

    /**
     * The seed's answer to a RENEW_REQUEST: the renewed chain, or why not.
     *
     * @param options the seed's CA, token and {@code cert.validity}
     * @param request the request
     * @param nonce the nonce of this connection's JOIN_CHALLENGE
     * @return a {@link Renewed} or a {@link Refused}
     */
    static Object answer(SeedOptions options, RenewRequest request, byte[] nonce) {
        byte[] covered = EnrolmentCodec.renewProofInput(request.certificate(), request.csr());
        if (!options.token().verify(request.proof(), nonce, covered)) {
            return new Refused(JoinRefusal.BAD_TOKEN, "join token proof of the RENEW_REQUEST does not verify");
        }
        X509Certificate leaf;
        String memberId;
        try {
            leaf = (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(request.certificate()));
            memberId = options.ca().verify(List.of(leaf, options.ca().certificate()));
        } catch (CertificateException | ClassCastException e) {
            return new Refused(JoinRefusal.BAD_CSR, "the certificate to renew is not a valid member certificate of"
                    + " this cluster: " + e.getMessage());
        }
        X509Certificate renewed;
        try {
            renewed = options.ca().issue(request.csr(), memberId, options.certValidity());
        } catch (IllegalArgumentException e) {
            return new Refused(JoinRefusal.BAD_CSR, "bad CSR: " + e.getMessage());
        }
        if (!renewed.getPublicKey().equals(leaf.getPublicKey())) {
            return new Refused(JoinRefusal.BAD_CSR, "the CSR's key is not the key of member " + memberId
                    + "'s certificate: a renewal keeps the key");
        }
        try {
            return new Renewed(List.of(renewed.getEncoded(), options.ca().certificate().getEncoded()));
        } catch (CertificateEncodingException e) {
            throw new IllegalStateException("cannot encode the renewed chain", e);
        }
    }
}
