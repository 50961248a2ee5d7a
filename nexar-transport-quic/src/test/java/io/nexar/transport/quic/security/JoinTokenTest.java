package io.nexar.transport.quic.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The channel-bound proofs of token-only enrolment: distinct per role, session, nonce, CSR and CA. */
@Timeout(10)
class JoinTokenTest {
    private final JoinToken token = JoinToken.generate();
    private final byte[] exporter = filled(1);
    private final byte[] nonce = filled(2);
    private final byte[] csr = filled(3);
    private final byte[] ca = filled(4);

    @Test
    void shouldVerifyTheProofsItMakes() {
        assertThat(token.verifyWorkerProof(token.workerProof(exporter, nonce, csr), exporter, nonce, csr)).isTrue();
        assertThat(token.verifySeedProof(token.seedProof(exporter, nonce, csr, ca), exporter, nonce, csr, ca))
                .isTrue();
    }

    @Test
    void shouldRefuseAProofOfAnotherTokenSessionOrRole() {
        byte[] worker = token.workerProof(exporter, nonce, csr);
        byte[] seed = token.seedProof(exporter, nonce, csr, ca);
        JoinToken other = JoinToken.generate();
        assertThat(other.verifyWorkerProof(worker, exporter, nonce, csr)).isFalse();
        assertThat(other.verifySeedProof(seed, exporter, nonce, csr, ca)).isFalse();
        assertThat(token.verifyWorkerProof(worker, filled(9), nonce, csr)).as("another TLS session").isFalse();
        assertThat(token.verifySeedProof(seed, exporter, nonce, csr, filled(9))).as("another CA").isFalse();
        assertThat(token.verifyWorkerProof(worker, exporter, nonce, filled(9))).as("another CSR").isFalse();
        // neither proof is the other, nor the pinned-CA proof (reflection across roles or modes)
        assertThat(worker).isNotEqualTo(seed).isNotEqualTo(token.proof(nonce, csr));
        assertThat(token.verifyWorkerProof(token.proof(nonce, csr), exporter, nonce, csr)).isFalse();
    }

    @Test
    void shouldAcceptTheStandardBase64Alphabet() {
        byte[] raw = new byte[32];
        Arrays.fill(raw, (byte) 0xfb); // encodes with '+' and '/' in standard base64
        String standard = Base64.getEncoder().encodeToString(raw);
        assertThat(standard).contains("+").contains("/").endsWith("=");
        assertThat(JoinToken.parse(standard)).isEqualTo(JoinToken.parse(Base64.getUrlEncoder().encodeToString(raw)));
    }

    private static byte[] filled(int v) {
        byte[] b = new byte[32];
        Arrays.fill(b, (byte) v);
        return b;
    }
}
