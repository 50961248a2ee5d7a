package io.nexar.transport.quic.security;

import io.nexar.transport.quic.MemberCredentials;
import io.nexar.transport.quic.MemberIdentity;
import java.io.IOException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.ExtensionsGenerator;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.pkcs.PKCS10CertificationRequestBuilder;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;

/**
 * A member's key pair, generated in its own process, and the certificate signing request that enrols it: the private
 * key never leaves the process; the seed only sees the public key inside a CSR signed with the private key.
 *
 * <p>Immutable and thread-safe.
 */
public final class MemberKeys {

    private final KeyPair keyPair;

    private MemberKeys(KeyPair keyPair) {
        this.keyPair = keyPair;
    }

    /** Generates a fresh EC P-256 key pair. */
    public static MemberKeys generate() {
        return new MemberKeys(Certificates.ecKeyPair());
    }

    /**
     * Wraps an existing key pair (EC P-256/384/521 or RSA of at least 2048 bits).
     *
     * @throws IllegalArgumentException if the key type or size is not accepted by the CA
     */
    public static MemberKeys of(KeyPair keyPair) {
        Certificates.checkKeyStrength(keyPair.getPublic());
        return new MemberKeys(keyPair);
    }

    /** The private key; keep it in this process. */
    public PrivateKey privateKey() {
        return keyPair.getPrivate();
    }

    /** The public key that the CSR carries. */
    public PublicKey publicKey() {
        return keyPair.getPublic();
    }

    /** The DER of a PKCS#10 CSR for this key with subject {@code CN=nexar member} and no requested identity. */
    public byte[] csr() {
        return csr(null);
    }

    /**
     * The DER of a PKCS#10 CSR for this key, signed with the private key. The CA ignores the requested names and
     * assigns the identity itself; {@code memberId}, if given, is only a hint shown in the subject and SAN request.
     *
     * @param memberId a requested member id, or null
     */
    public byte[] csr(String memberId) {
        if (memberId != null) {
            Certificates.checkMemberId(memberId);
        }
        PKCS10CertificationRequestBuilder b = new JcaPKCS10CertificationRequestBuilder(
                new X500Principal(memberId == null ? "CN=nexar member" : "CN=nexar member " + memberId),
                keyPair.getPublic());
        if (memberId != null) {
            try {
                var extensions = new ExtensionsGenerator();
                extensions.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(
                        new GeneralName(GeneralName.uniformResourceIdentifier, MemberIdentity.uri(memberId))));
                b.addAttribute(PKCSObjectIdentifiers.pkcs_9_at_extensionRequest, extensions.generate());
            } catch (IOException e) {
                throw new IllegalStateException("cannot encode the CSR extension request", e);
            }
        }
        try {
            return b.build(Certificates.signer(keyPair.getPrivate())).getEncoded();
        } catch (IOException e) {
            throw new IllegalStateException("cannot encode the CSR", e);
        }
    }

    /**
     * Credentials from this key and the chain the CA issued for it.
     *
     * @param chain the issued chain, leaf first; the leaf must certify this key
     * @param clusterCa the cluster CA certificate
     * @param memberId the member id the leaf names
     * @throws IllegalArgumentException if the leaf's public key is not this key's
     */
    public MemberCredentials credentials(List<X509Certificate> chain, X509Certificate clusterCa, String memberId) {
        if (chain.isEmpty() || !chain.getFirst().getPublicKey().equals(keyPair.getPublic())) {
            throw new IllegalArgumentException("the issued certificate does not certify this member's public key");
        }
        return new MemberCredentials(keyPair.getPrivate(), chain, clusterCa, memberId);
    }

    @Override
    public String toString() {
        return "MemberKeys[" + keyPair.getPublic().getAlgorithm() + "]";
    }
}
