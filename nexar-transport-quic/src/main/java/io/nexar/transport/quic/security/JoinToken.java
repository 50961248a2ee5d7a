package io.nexar.transport.quic.security;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;

/**
 * The cluster's join secret: 256 random bits from {@link SecureRandom}, written as unpadded base64url (43
 * characters). Workers never send the token itself; they prove they know it with
 * {@code HMAC-SHA256(token, serverNonce || SHA-256(csrDer))}, which binds the proof to one connection (the seed's
 * fresh nonce) and one key (the CSR), so a captured proof is useless on another connection or with another key.
 *
 * <p>A worker with a token-only join string (no CA fingerprint to authenticate the seed by) uses the channel-bound
 * proofs instead: {@link #workerProof} and {@link #seedProof}, keyed by a key derived from the token and covering the
 * TLS exporter value of the enrolment connection, so that a proof made on one TLS session verifies on no other
 * (docs/security.md gives the argument).
 *
 * <p>{@link #toString()} never reveals the secret; use {@link #encoded()} to print it deliberately. Immutable and
 * thread-safe.
 */
public final class JoinToken {

    /** Bytes of a generated token (256 bits). */
    public static final int GENERATED_BYTES = 32;
    /** Fewest bytes a parsed token may have (128 bits, docs/design.md section 4). */
    public static final int MIN_BYTES = 16;
    /** Most bytes a parsed token may have. */
    public static final int MAX_BYTES = 64;
    /** Size of a proof: one HMAC-SHA256. */
    public static final int PROOF_BYTES = 32;

    /** Size of a TLS exporter value the channel-bound proofs cover. */
    public static final int EXPORTER_BYTES = 32;
    /** The RFC 8446 section 7.5 exporter label of the enrolment connection. */
    public static final String EXPORTER_LABEL = "EXPORTER-nexar-enrolment-v1";

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String HMAC = "HmacSHA256";
    private static final byte[] BOUND_KEY_LABEL = label("nexar token-bound enrolment key v1");
    private static final byte[] WORKER_LABEL = label("nexar worker proof v1");
    private static final byte[] SEED_LABEL = label("nexar seed proof v1");

    private final byte[] secret;

    private JoinToken(byte[] secret) {
        this.secret = secret;
    }

    /** A fresh token of {@link #GENERATED_BYTES} random bytes. */
    public static JoinToken generate() {
        byte[] b = new byte[GENERATED_BYTES];
        RANDOM.nextBytes(b);
        return new JoinToken(b);
    }

    /**
     * Parses the base64url text of a token (padding and the standard base64 alphabet's {@code +} and {@code /}
     * tolerated, so that {@code openssl rand -base64 32} gives a usable token).
     *
     * @throws IllegalArgumentException if the text is not base64url, or decodes to fewer than {@link #MIN_BYTES} or
     *         more than {@link #MAX_BYTES} bytes; the message never contains the text
     */
    public static JoinToken parse(String text) {
        Objects.requireNonNull(text, "text");
        byte[] b;
        try {
            b = Base64.getUrlDecoder().decode(text.replace('+', '-').replace('/', '_'));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("join token is not base64url text (A-Z a-z 0-9 - _)");
        }
        if (b.length < MIN_BYTES || b.length > MAX_BYTES) {
            throw new IllegalArgumentException("join token has " + b.length * 8 + " bits; between " + MIN_BYTES * 8
                    + " and " + MAX_BYTES * 8 + " expected");
        }
        return new JoinToken(b);
    }

    /** The secret as unpadded base64url text, for the join string. Treat it as a password. */
    public String encoded() {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
    }

    /**
     * The proof of knowledge of this token for one enrolment attempt.
     *
     * @param serverNonce the nonce the seed sent on this connection
     * @param csrDer the CSR the worker sends with the proof
     * @return {@code HMAC-SHA256(token, serverNonce || SHA-256(csrDer))}, {@link #PROOF_BYTES} bytes
     */
    public byte[] proof(byte[] serverNonce, byte[] csrDer) {
        Objects.requireNonNull(serverNonce, "serverNonce");
        Objects.requireNonNull(csrDer, "csrDer");
        try {
            byte[] csrDigest = MessageDigest.getInstance("SHA-256").digest(csrDer);
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(secret, HMAC));
            mac.update(serverNonce);
            mac.update(csrDigest);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK has no HMAC-SHA256", e);
        }
    }

    /**
     * Whether {@code proof} is this token's proof for {@code serverNonce} and {@code csrDer}. The comparison takes
     * the same time wherever the first differing byte is ({@link MessageDigest#isEqual}).
     */
    public boolean verify(byte[] proof, byte[] serverNonce, byte[] csrDer) {
        return proof != null && MessageDigest.isEqual(proof(serverNonce, csrDer), proof);
    }

    /**
     * A worker's channel-bound proof of this token (token-only join strings): {@code HMAC-SHA256(K, "nexar worker
     * proof v1" 0x00 || exporter || serverNonce || SHA-256(csrDer))} with {@code K = HMAC-SHA256(token, "nexar
     * token-bound enrolment key v1" 0x00)}.
     *
     * @param exporter the {@link #EXPORTER_BYTES}-byte TLS exporter value of the enrolment connection
     *                 ({@link #EXPORTER_LABEL}, no context)
     */
    public byte[] workerProof(byte[] exporter, byte[] serverNonce, byte[] csrDer) {
        return mac(boundKey(), WORKER_LABEL, exporter, serverNonce, sha256(csrDer));
    }

    /**
     * The seed's channel-bound proof of this token to a token-only worker: {@code HMAC-SHA256(K, "nexar seed proof
     * v1" 0x00 || exporter || serverNonce || SHA-256(csrDer) || SHA-256(caDer))}; a different label from the
     * worker's, so that neither proof can be reflected as the other.
     *
     * @param caDer the DER of the cluster CA certificate the seed presented, which the worker then pins
     */
    public byte[] seedProof(byte[] exporter, byte[] serverNonce, byte[] csrDer, byte[] caDer) {
        return mac(boundKey(), SEED_LABEL, exporter, serverNonce, sha256(csrDer), sha256(caDer));
    }

    /** Whether {@code proof} is {@link #workerProof} for these values; constant-time comparison. */
    public boolean verifyWorkerProof(byte[] proof, byte[] exporter, byte[] serverNonce, byte[] csrDer) {
        return proof != null && MessageDigest.isEqual(workerProof(exporter, serverNonce, csrDer), proof);
    }

    /** Whether {@code proof} is {@link #seedProof} for these values; constant-time comparison. */
    public boolean verifySeedProof(byte[] proof, byte[] exporter, byte[] serverNonce, byte[] csrDer, byte[] caDer) {
        return proof != null && MessageDigest.isEqual(seedProof(exporter, serverNonce, csrDer, caDer), proof);
    }

    /**
     * The {@link #EXPORTER_BYTES}-byte exporter value (RFC 8446 section 7.5, label {@link #EXPORTER_LABEL}, no
     * context) of an established TLS 1.3 session: the same at both ends of one session, unpredictable and different
     * for every other session, including the two sessions of a man in the middle.
     *
     * @throws SSLException if the session cannot export keying material
     */
    public static byte[] exporter(SSLSession session) throws SSLException {
        if (!(session instanceof ExtendedSSLSession extended)) {
            throw new SSLException("the TLS session (" + session.getClass().getName() + ") has no keying material"
                    + " exporter");
        }
        byte[] value = extended.exportKeyingMaterialData(EXPORTER_LABEL, null, EXPORTER_BYTES);
        if (value == null || value.length != EXPORTER_BYTES) {
            throw new SSLException("the TLS session did not export keying material");
        }
        return value;
    }

    private byte[] boundKey() {
        return mac(secret, BOUND_KEY_LABEL);
    }

    private static byte[] mac(byte[] key, byte[]... parts) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(key, HMAC));
            for (byte[] p : parts) {
                mac.update(Objects.requireNonNull(p, "proof input"));
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK has no HMAC-SHA256", e);
        }
    }

    private static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(Objects.requireNonNull(b, "proof input"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK has no SHA-256", e);
        }
    }

    private static byte[] label(String text) {
        byte[] ascii = text.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        return Arrays.copyOf(ascii, ascii.length + 1); // NUL-terminated: no label is a prefix of another's input
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JoinToken t && MessageDigest.isEqual(secret, t.secret);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(secret);
    }

    /** {@code JoinToken[256 bits]}: never the secret. */
    @Override
    public String toString() {
        return "JoinToken[" + secret.length * 8 + " bits]";
    }
}
