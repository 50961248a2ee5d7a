package io.nexar.transport.quic.security;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The cluster's join secret: 256 random bits from {@link SecureRandom}, written as unpadded base64url (43
 * characters). Workers never send the token itself; they prove they know it with
 * {@code HMAC-SHA256(token, serverNonce || SHA-256(csrDer))}, which binds the proof to one connection (the seed's
 * fresh nonce) and one key (the CSR), so a captured proof is useless on another connection or with another key.
 *
 * <p>{@link #toString()} never reveals the secret; use {@link #encoded()} to print it deliberately. Immutable and
 * thread-safe.
 */
public final class JoinToken {

    /** Bytes of a generated token (256 bits). */
    public static final int GENERATED_BYTES = 32;
    /** Fewest bytes a parsed token may have (128 bits, DESIGN.md section 4). */
    public static final int MIN_BYTES = 16;
    /** Most bytes a parsed token may have. */
    public static final int MAX_BYTES = 64;
    /** Size of a proof: one HMAC-SHA256. */
    public static final int PROOF_BYTES = 32;

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String HMAC = "HmacSHA256";

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
     * Parses the base64url text of a token (padding tolerated).
     *
     * @throws IllegalArgumentException if the text is not base64url, or decodes to fewer than {@link #MIN_BYTES} or
     *         more than {@link #MAX_BYTES} bytes; the message never contains the text
     */
    public static JoinToken parse(String text) {
        Objects.requireNonNull(text, "text");
        byte[] b;
        try {
            b = Base64.getUrlDecoder().decode(text);
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
