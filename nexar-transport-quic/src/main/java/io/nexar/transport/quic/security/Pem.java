package io.nexar.transport.quic.security;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PrivateKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;

/**
 * PEM text for certificates and private keys, as operators keep them in files ({@code openssl} and {@code kubeadm}
 * formats). Reading accepts {@code CERTIFICATE}, {@code PRIVATE KEY} (PKCS#8), {@code EC PRIVATE KEY} (SEC 1) and
 * {@code RSA PRIVATE KEY} (PKCS#1) blocks; encrypted keys are refused with a message saying so. Writing produces
 * {@code CERTIFICATE} and unencrypted PKCS#8 {@code PRIVATE KEY} blocks; key files are created readable by their owner
 * only where the file system supports POSIX permissions.
 *
 * <p>Stateless and thread-safe. Errors name the file (or "PEM text") and what was found instead of what was expected.
 */
public final class Pem {

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private Pem() {
    }

    /** The PEM block of {@code der} with the given label, for example {@code CERTIFICATE}; lines of 64 characters. */
    public static String encode(String label, byte[] der) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        return "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n";
    }

    /** The PEM text of {@code certs}, one {@code CERTIFICATE} block each, in order. */
    public static String encodeCertificates(List<X509Certificate> certs) {
        var sb = new StringBuilder();
        for (X509Certificate c : certs) {
            try {
                sb.append(encode("CERTIFICATE", c.getEncoded()));
            } catch (CertificateEncodingException e) {
                throw new IllegalArgumentException("cannot encode certificate " + c.getSubjectX500Principal(), e);
            }
        }
        return sb.toString();
    }

    /** The unencrypted PKCS#8 {@code PRIVATE KEY} block of {@code key}. Treat the result as a secret. */
    public static String encodePrivateKey(PrivateKey key) {
        byte[] der = key.getEncoded();
        if (der == null || !"PKCS#8".equals(key.getFormat())) {
            throw new IllegalArgumentException("private key of type " + key.getAlgorithm()
                    + " has no PKCS#8 encoding (format " + key.getFormat() + ")");
        }
        return encode("PRIVATE KEY", der);
    }

    /**
     * Writes {@code certs} to a new file (or replaces an existing one).
     *
     * @throws IOException if the file cannot be written
     */
    public static void writeCertificates(Path file, List<X509Certificate> certs) throws IOException {
        Files.writeString(file, encodeCertificates(certs), StandardCharsets.US_ASCII);
    }

    /**
     * Writes {@code key} as PKCS#8 PEM to a file that must not exist yet, created with owner-only permissions on
     * POSIX file systems, so the secret is never readable by others, not even briefly.
     *
     * @throws FileAlreadyExistsException if the file exists (keys are never overwritten silently)
     * @throws IOException if the file cannot be written
     */
    public static void writePrivateKey(Path file, PrivateKey key) throws IOException {
        String pem = encodePrivateKey(key);
        if (Files.getFileStore(file.toAbsolutePath().getParent()).supportsFileAttributeView("posix")) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } else {
            Files.createFile(file);
        }
        Files.writeString(file, pem, StandardCharsets.US_ASCII, StandardOpenOption.TRUNCATE_EXISTING);
    }

    /**
     * Reads every {@code CERTIFICATE} block of a file, in order.
     *
     * @throws IOException if the file cannot be read, naming it
     * @throws IllegalArgumentException if it holds no certificate or a malformed one, naming the file
     */
    public static List<X509Certificate> readCertificates(Path file) throws IOException {
        return parseCertificates(readFile(file, "certificate"), file.toString());
    }

    /**
     * Reads the one private key of a file.
     *
     * @throws IOException if the file cannot be read, naming it
     * @throws IllegalArgumentException if it holds no private key, several, an encrypted one or a malformed one
     */
    public static PrivateKey readPrivateKey(Path file) throws IOException {
        return parsePrivateKey(readFile(file, "private key"), file.toString());
    }

    /**
     * Parses every {@code CERTIFICATE} block of PEM text, in order; other blocks are skipped.
     *
     * @param source names the text in error messages, for example a file name
     * @throws IllegalArgumentException if there is no certificate or one is malformed
     */
    public static List<X509Certificate> parseCertificates(String pem, String source) {
        var out = new ArrayList<X509Certificate>();
        try (var parser = new PEMParser(new StringReader(pem))) {
            Object o;
            while ((o = readObject(parser, source)) != null) {
                if (o instanceof X509CertificateHolder holder) {
                    out.add(certificate(holder.getEncoded(), source));
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException(source + ": malformed PEM: " + e.getMessage(), e);
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(source + ": no PEM CERTIFICATE block found");
        }
        return List.copyOf(out);
    }

    /**
     * Parses the one private key of PEM text ({@code PRIVATE KEY}, {@code EC PRIVATE KEY} or {@code RSA PRIVATE KEY});
     * certificate blocks are skipped, so a combined certificate-and-key file is accepted.
     *
     * @param source names the text in error messages, for example a file name
     * @throws IllegalArgumentException if there is no key, more than one, an encrypted one or a malformed one
     */
    public static PrivateKey parsePrivateKey(String pem, String source) {
        PrivateKeyInfo found = null;
        try (var parser = new PEMParser(new StringReader(pem))) {
            Object o;
            while ((o = readObject(parser, source)) != null) {
                PrivateKeyInfo info = switch (o) {
                    case PrivateKeyInfo p -> p;
                    case PEMKeyPair kp -> kp.getPrivateKeyInfo();
                    case PEMEncryptedKeyPair _, PKCS8EncryptedPrivateKeyInfo _ -> throw new IllegalArgumentException(
                            source + ": the private key is encrypted; nexar needs an unencrypted key (decrypt it with"
                                    + " `openssl pkey -in KEY -out PLAIN` and protect the file with permissions)");
                    default -> null;
                };
                if (info != null && found != null) {
                    throw new IllegalArgumentException(source + ": more than one private key found");
                }
                found = info != null ? info : found;
            }
            if (found == null) {
                throw new IllegalArgumentException(source + ": no PEM PRIVATE KEY block found");
            }
            return new JcaPEMKeyConverter().getPrivateKey(found);
        } catch (IOException e) {
            throw new IllegalArgumentException(source + ": malformed private key: " + e.getMessage(), e);
        }
    }

    /** Decodes one DER certificate. */
    static X509Certificate certificate(byte[] der, String source) {
        try {
            var factory = CertificateFactory.getInstance("X.509");
            return (X509Certificate) factory.generateCertificate(new ByteArrayInputStream(der));
        } catch (CertificateException | ClassCastException e) {
            throw new IllegalArgumentException(source + ": malformed certificate: " + e.getMessage(), e);
        }
    }

    private static Object readObject(PEMParser parser, String source) throws IOException {
        try {
            return parser.readObject();
        } catch (RuntimeException e) { // BouncyCastle reports some malformed blocks unchecked
            throw new IOException(e.getMessage() == null ? e.toString() : e.getMessage(), e);
        }
    }

    private static String readFile(Path file, String what) throws IOException {
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
            var sb = new StringBuilder();
            char[] buf = new char[4096];
            for (int n; (n = r.read(buf)) >= 0; ) {
                sb.append(buf, 0, n);
                if (sb.length() > 1 << 20) {
                    throw new IOException("cannot read " + what + " file " + file + ": larger than 1 MiB, not PEM");
                }
            }
            return sb.toString();
        } catch (IOException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("cannot read")) {
                throw e;
            }
            throw new IOException("cannot read " + what + " file " + file + ": " + e, e);
        }
    }
}
