package io.nexar.transport.quic.security;

import io.nexar.internal.protocol.EnrolmentCodec;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.cert.X509Certificate;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;
import org.bouncycastle.pkcs.PKCSException;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequest;

/**
 * Key, signature and CSR plumbing shared by {@link ClusterCa} and {@link MemberKeys}. All cryptography runs in the
 * JDK's providers; BouncyCastle only builds and parses the ASN.1 structures, and is never installed as a global
 * provider.
 */
final class Certificates {

    /** Largest CSR the CA parses (the wire limit); a P-256 CSR is about 250 bytes, an RSA-4096 one 1.2 KiB. */
    static final int MAX_CSR_BYTES = EnrolmentCodec.MAX_CSR_BYTES;

    private Certificates() {
    }

    /** A fresh EC P-256 key pair from the JDK's default provider. */
    static KeyPair ecKeyPair() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"));
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JDK cannot generate EC P-256 keys", e);
        }
    }

    /** The signature algorithm nexar uses with a key of this type: ECDSA or RSA with SHA-256. */
    static String signatureAlgorithm(PublicKey key) {
        return switch (key.getAlgorithm()) {
            case "EC", "ECDSA" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            default -> throw new IllegalArgumentException("unsupported key algorithm " + key.getAlgorithm()
                    + " (EC or RSA expected)");
        };
    }

    /** The signature algorithm for a private key. */
    static String signatureAlgorithm(PrivateKey key) {
        return switch (key.getAlgorithm()) {
            case "EC", "ECDSA" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            default -> throw new IllegalArgumentException("unsupported key algorithm " + key.getAlgorithm()
                    + " (EC or RSA expected)");
        };
    }

    static ContentSigner signer(PrivateKey key) {
        try {
            return new JcaContentSignerBuilder(signatureAlgorithm(key)).build(key);
        } catch (OperatorCreationException e) {
            throw new IllegalStateException("cannot sign with a " + key.getAlgorithm() + " key", e);
        }
    }

    /** Signs a certificate with {@code key} and converts it to a JDK certificate. */
    static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey key) {
        try {
            return new JcaX509CertificateConverter().getCertificate(builder.build(signer(key)));
        } catch (java.security.cert.CertificateException e) {
            throw new IllegalStateException("cannot convert a freshly signed certificate", e);
        }
    }

    /** Parses a CSR, refusing oversized and malformed input with an {@link IllegalArgumentException}. */
    static PKCS10CertificationRequest parseCsr(byte[] der) {
        if (der.length == 0 || der.length > MAX_CSR_BYTES) {
            throw new IllegalArgumentException("CSR of " + der.length + " bytes is not in [1, " + MAX_CSR_BYTES + "]");
        }
        try {
            return new PKCS10CertificationRequest(der);
        } catch (IOException | RuntimeException e) { // BouncyCastle throws unchecked exceptions for some garbage
            throw new IllegalArgumentException("CSR is not a DER PKCS#10 request: " + e.getMessage(), e);
        }
    }

    /**
     * Verifies the CSR's self-signature (proof that the requester holds the private key) and the strength of its
     * key, and returns the public key.
     */
    static PublicKey verifyCsr(PKCS10CertificationRequest csr) {
        PublicKey key;
        try {
            key = new JcaPKCS10CertificationRequest(csr).getPublicKey();
        } catch (GeneralSecurityException | RuntimeException e) {
            throw new IllegalArgumentException("CSR public key is unreadable: " + e.getMessage(), e);
        }
        checkKeyStrength(key);
        boolean valid;
        try {
            valid = csr.isSignatureValid(new JcaContentVerifierProviderBuilder().build(key));
        } catch (OperatorCreationException | PKCSException | RuntimeException e) {
            throw new IllegalArgumentException("CSR signature cannot be checked: " + e.getMessage(), e);
        }
        if (!valid) {
            throw new IllegalArgumentException("CSR signature does not verify with the CSR's public key");
        }
        return key;
    }

    /** Refuses keys that are too weak or of an unsupported type. */
    static void checkKeyStrength(PublicKey key) {
        switch (key) {
            case ECPublicKey ec -> {
                int bits = ec.getParams().getCurve().getField().getFieldSize();
                if (bits != 256 && bits != 384 && bits != 521) {
                    throw new IllegalArgumentException("EC key of " + bits + " bits: P-256, P-384 or P-521 expected");
                }
            }
            case RSAPublicKey rsa -> {
                if (rsa.getModulus().bitLength() < 2048) {
                    throw new IllegalArgumentException("RSA key of " + rsa.getModulus().bitLength()
                            + " bits: at least 2048 expected");
                }
            }
            default -> throw new IllegalArgumentException("unsupported key algorithm " + key.getAlgorithm()
                    + " (EC or RSA expected)");
        }
    }

    /** Member ids: the wire rule of {@link EnrolmentCodec#memberIdProblem}. */
    static void checkMemberId(String memberId) {
        String problem = EnrolmentCodec.memberIdProblem(memberId);
        if (problem != null) {
            throw new IllegalArgumentException((memberId == null ? "null member id" : "member id \"" + memberId
                    + "\"") + ": " + problem);
        }
    }
}
