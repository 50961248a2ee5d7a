package io.nexar.transport.quic.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.transport.quic.MemberCredentials;
import io.nexar.transport.quic.MemberIdentity;
import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.PKCS8Generator;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.bouncycastle.pkcs.PKCS10CertificationRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The cluster CA: generation, loading from PEM, fingerprints, issuing from CSRs. */
@Timeout(30)
class ClusterCaTest {

    static final ClusterCa CA = ClusterCa.generate();

    @Test
    void generatedCaIsASelfSignedEcCaAllowedToSignCertificates() throws Exception {
        X509Certificate c = CA.certificate();
        assertThat(c.getPublicKey().getAlgorithm()).isEqualTo("EC");
        assertThat(c.getBasicConstraints()).isGreaterThanOrEqualTo(0);
        assertThat(c.getKeyUsage()[5]).as("keyCertSign").isTrue();
        assertThat(c.getSubjectX500Principal()).isEqualTo(c.getIssuerX500Principal());
        c.verify(c.getPublicKey());
    }

    @Test
    void fingerprintIsSha256OfTheDerInLowercaseHex() throws Exception {
        String expected = "sha256:" + HexFormat.of().formatHex(
                MessageDigest.getInstance("SHA-256").digest(CA.certificate().getEncoded()));
        assertThat(CA.fingerprint()).isEqualTo(expected).matches("sha256:[0-9a-f]{64}");
        assertThat(ClusterCa.generate().fingerprint()).isNotEqualTo(CA.fingerprint());
    }

    @Test
    void issuesALeafForTheCsrKeyNamingTheMember() throws Exception {
        MemberKeys keys = MemberKeys.generate();
        Instant before = Instant.now();
        X509Certificate leaf = CA.issue(keys.csr(), "0123abcd", Duration.ofHours(2));
        assertThat(leaf.getPublicKey()).isEqualTo(keys.publicKey());
        assertThat(MemberIdentity.of(leaf)).contains("0123abcd");
        assertThat(leaf.getBasicConstraints()).isEqualTo(-1);
        assertThat(leaf.getKeyUsage()[0]).as("digitalSignature").isTrue();
        assertThat(leaf.getExtendedKeyUsage()).containsExactlyInAnyOrder(PeerVerifier.SERVER_AUTH,
                PeerVerifier.CLIENT_AUTH);
        assertThat(leaf.getNotBefore().toInstant()).isBefore(before.minusSeconds(59));
        assertThat(leaf.getNotAfter().toInstant()).isBetween(before.plus(Duration.ofHours(2)).minusSeconds(1),
                Instant.now().plus(Duration.ofHours(2)).plusSeconds(1));
        assertThat(leaf.getSerialNumber()).isGreaterThan(BigInteger.ZERO);
        leaf.verify(CA.certificate().getPublicKey());
        assertThat(CA.verify(List.of(leaf))).isEqualTo("0123abcd");
        assertThat(CA.issue(keys.csr(), "0123abcd", Duration.ofHours(2)).getSerialNumber())
                .isNotEqualTo(leaf.getSerialNumber());
    }

    @Test
    void issuesForRsaCsrsToo() throws Exception {
        var g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        MemberKeys keys = MemberKeys.of(g.generateKeyPair());
        X509Certificate leaf = CA.issue(keys.csr("rsa-member"), "rsa-member", Duration.ofMinutes(5));
        assertThat(leaf.getPublicKey()).isEqualTo(keys.publicKey());
        assertThat(MemberIdentity.of(leaf)).contains("rsa-member");
    }

    @Test
    void theCsrNameIsIgnoredTheAssignedIdentityWins() throws Exception {
        MemberKeys keys = MemberKeys.generate();
        X509Certificate leaf = CA.issue(keys.csr("i-want-this"), "assigned", Duration.ofMinutes(5));
        assertThat(MemberIdentity.of(leaf)).contains("assigned");
    }

    @Test
    void leafNeverOutlivesItsCa() {
        ClusterCa shortCa = ClusterCa.generate(Duration.ofHours(1));
        X509Certificate leaf = shortCa.issue(MemberKeys.generate().csr(), "m", Duration.ofDays(30));
        assertThat(leaf.getNotAfter()).isEqualTo(shortCa.certificate().getNotAfter());
    }

    @Test
    void refusesACsrWhoseSignatureDoesNotVerify() throws Exception {
        byte[] csr = MemberKeys.generate().csr();
        var parsed = new PKCS10CertificationRequest(csr);
        byte[] sig = parsed.getSignature();
        int at = indexOf(csr, sig);
        csr[at + sig.length / 2] ^= 0x01;
        assertThatThrownBy(() -> CA.issue(csr, "m", Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("CSR signature");
    }

    @Test
    void refusesGarbageAndOversizedCsrs() {
        assertThatThrownBy(() -> CA.issue(new byte[] {1, 2, 3}, "m", Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a DER PKCS#10 request");
        assertThatThrownBy(() -> CA.issue(new byte[9000], "m", Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("9000 bytes");
        assertThatThrownBy(() -> CA.issue(MemberKeys.generate().csr(), "Bad Id", Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("only lowercase letters");
        assertThatThrownBy(() -> CA.issue(MemberKeys.generate().csr(), "m", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("validity");
    }

    @Test
    void refusesWeakRsaKeys() throws Exception {
        var g = KeyPairGenerator.getInstance("RSA");
        g.initialize(1024);
        assertThatThrownBy(() -> MemberKeys.of(g.generateKeyPair()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 2048");
    }

    @Test
    void issueSelfMakesCredentialsWithTheCaInTheChain() throws Exception {
        MemberCredentials seed = CA.issueSelf(Duration.ofMinutes(10));
        assertThat(seed.memberId()).isEqualTo(ClusterCa.SEED_MEMBER_ID);
        assertThat(seed.chain()).hasSize(2);
        assertThat(seed.chain().get(1)).isEqualTo(CA.certificate());
        assertThat(seed.clusterCa()).isEqualTo(CA.certificate());
        assertThat(CA.verify(seed.chain())).isEqualTo("seed");
    }

    @Test
    void savedCaLoadsBackWithTheSameFingerprint(@TempDir Path dir) throws Exception {
        Path cert = dir.resolve("ca.pem");
        Path key = dir.resolve("ca.key");
        Pem.writeCertificates(cert, List.of(CA.certificate()));
        Pem.writePrivateKey(key, CA.privateKey());
        ClusterCa loaded = ClusterCa.load(cert, key);
        assertThat(loaded.fingerprint()).isEqualTo(CA.fingerprint());
        X509Certificate leaf = loaded.issue(MemberKeys.generate().csr(), "m1", Duration.ofMinutes(1));
        assertThat(CA.verify(List.of(leaf))).isEqualTo("m1");
        if (Files.getFileStore(dir).supportsFileAttributeView("posix")) {
            assertThat(Files.getPosixFilePermissions(key).toString()).isEqualTo("[OWNER_READ, OWNER_WRITE]");
        }
        assertThatThrownBy(() -> Pem.writePrivateKey(key, CA.privateKey()))
                .isInstanceOf(java.nio.file.FileAlreadyExistsException.class);
    }

    @Test
    void loadNamesTheFileAndTheProblem(@TempDir Path dir) throws Exception {
        Path cert = dir.resolve("ca.pem");
        Path otherKey = dir.resolve("other.key");
        Path leafCert = dir.resolve("leaf.pem");
        Path garbage = dir.resolve("garbage.pem");
        Pem.writeCertificates(cert, List.of(CA.certificate()));
        Pem.writePrivateKey(otherKey, ClusterCa.generate().privateKey());
        MemberCredentials member = CA.issueSelf("leaf");
        Pem.writeCertificates(leafCert, List.of(member.leaf()));
        Files.writeString(garbage, "hello, not PEM\n");

        assertThatThrownBy(() -> ClusterCa.load(dir.resolve("missing.pem"), otherKey))
                .isInstanceOf(IOException.class).hasMessageContaining("cannot read certificate file")
                .hasMessageContaining("missing.pem");
        assertThatThrownBy(() -> ClusterCa.load(cert, otherKey))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not belong to CA certificate")
                .hasMessageContaining("other.key");
        assertThatThrownBy(() -> ClusterCa.load(garbage, otherKey))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("garbage.pem")
                .hasMessageContaining("no PEM CERTIFICATE block");
        assertThatThrownBy(() -> ClusterCa.load(cert, cert))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no PEM PRIVATE KEY block");
        assertThatThrownBy(() -> ClusterCa.load(leafCert, otherKey))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is not a CA certificate");
    }

    @Test
    void encryptedKeysAreRefusedWithAHint() throws Exception {
        var encryptor = new JceOpenSSLPKCS8EncryptorBuilder(PKCS8Generator.AES_256_CBC)
                .setProvider(new BouncyCastleProvider()).setPassword("secret".toCharArray()).build();
        var out = new StringWriter();
        try (var w = new JcaPEMWriter(out)) {
            w.writeObject(new JcaPKCS8Generator(CA.privateKey(), encryptor));
        }
        assertThat(out.toString()).contains("ENCRYPTED PRIVATE KEY");
        assertThatThrownBy(() -> Pem.parsePrivateKey(out.toString(), "enc.key"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("enc.key")
                .hasMessageContaining("encrypted");
    }

    @Test
    void pemRoundTripsChains() {
        MemberCredentials m = CA.issueSelf("pem");
        String text = Pem.encodeCertificates(m.chain()) + Pem.encodePrivateKey(m.privateKey());
        assertThat(Pem.parseCertificates(text, "t")).isEqualTo(m.chain());
        assertThat(Pem.parsePrivateKey(text, "t")).isEqualTo(m.privateKey());
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("signature not found in CSR");
    }
}
