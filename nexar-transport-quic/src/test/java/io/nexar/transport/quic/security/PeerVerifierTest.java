package io.nexar.transport.quic.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.transport.quic.MemberCredentials;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Chain-to-CA and identity checks, directly and in real mutual TLS 1.3 handshakes. */
@Timeout(30)
class PeerVerifierTest {

    static final ClusterCa CA = ClusterCa.generate();
    static final ClusterCa OTHER_CA = ClusterCa.generate();

    @Test
    void acceptsAMemberOfTheClusterAndReturnsItsId() throws Exception {
        MemberCredentials m = CA.issueSelf("abc123");
        assertThat(CA.verifier().verify(m.chain())).isEqualTo("abc123");
        CA.verifier().verify(List.of(m.leaf()), "abc123");
    }

    @Test
    void refusesACertificateFromAnotherCa() {
        MemberCredentials stranger = OTHER_CA.issueSelf("abc123");
        assertThatThrownBy(() -> CA.verify(stranger.chain()))
                .isInstanceOf(CertificateException.class)
                .hasMessageContaining("certificate of member abc123 was issued by")
                .hasMessageContaining("not by the cluster CA " + CA.fingerprint());
        // Even when the peer sends our CA along with its chain: trust comes from the configured anchor only.
        assertThatThrownBy(() -> CA.verify(List.of(stranger.leaf(), CA.certificate())))
                .isInstanceOf(CertificateException.class);
    }

    @Test
    void refusesACertificateFromAnImpostorCaWithTheSameName() throws Exception {
        // An impostor CA that copies our CA's subject name but has its own key.
        X509Certificate real = CA.certificate();
        var impostorKeys = MemberKeys.generate();
        var b = new JcaX509v3CertificateBuilder(real.getSubjectX500Principal(), BigInteger.TEN,
                Date.from(Instant.now().minusSeconds(60)), Date.from(Instant.now().plusSeconds(3600)),
                real.getSubjectX500Principal(), impostorKeys.publicKey());
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
        b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign));
        X509Certificate impostorCert = Certificates.sign(b, impostorKeys.privateKey());
        ClusterCa impostor = ClusterCa.of(impostorCert, impostorKeys.privateKey(), "test");
        MemberCredentials forged = impostor.issueSelf("abc123");
        assertThatThrownBy(() -> CA.verify(forged.chain()))
                .isInstanceOf(CertificateException.class)
                .hasMessageContaining("is not signed by the cluster CA " + CA.fingerprint());
    }

    @Test
    void refusesTheWrongMemberAnExpiredLeafAndACaPosingAsAMember() {
        MemberCredentials m = CA.issueSelf("abc123", Duration.ofHours(1));
        assertThatThrownBy(() -> CA.verifier().verify(m.chain(), "def456"))
                .isInstanceOf(CertificateException.class)
                .hasMessageContaining("peer presented the certificate of member abc123, expected member def456");
        assertThatThrownBy(() -> CA.verifier().verify(m.chain(), null, Instant.now().plus(Duration.ofHours(2))))
                .isInstanceOf(CertificateException.class).hasMessageContaining("certificate of member abc123 expired");
        assertThatThrownBy(() -> CA.verifier().verify(m.chain(), null, Instant.now().minus(Duration.ofHours(1))))
                .isInstanceOf(CertificateException.class).hasMessageContaining("is not valid before");
        assertThatThrownBy(() -> CA.verify(List.of(CA.certificate())))
                .isInstanceOf(CertificateException.class).hasMessageContaining("is a CA certificate");
        assertThatThrownBy(() -> CA.verify(List.of()))
                .isInstanceOf(CertificateException.class).hasMessageContaining("empty certificate chain");
    }

    /** Issue 16 item 3: a member excluded by recovery or shrink is refused if it comes back with its old identity. */
    @Test
    void refusesARevokedMemberAndOnlyIt() throws Exception {
        var verifier = new PeerVerifier(CA.certificate());
        MemberCredentials gone = CA.issueSelf("gone42");
        MemberCredentials stays = CA.issueSelf("stays7");
        verifier.revoke("gone42", "rank 2 was excluded by the survivors");
        verifier.revoke("gone42", "a later reason is not kept");
        assertThat(verifier.isRevoked("gone42")).isTrue();
        assertThatThrownBy(() -> verifier.verify(gone.chain()))
                .isInstanceOf(CertificateException.class)
                .hasMessage("certificate of member gone42 is revoked: rank 2 was excluded by the survivors (a member"
                        + " excluded from the cluster cannot come back with its old identity)");
        assertThat(verifier.verify(stays.chain())).isEqualTo("stays7");
        // in a real handshake too: the server's trust manager refuses the revoked client
        try (var listener = listen(TlsMaterial.sslContext(stays, TlsMaterial.trustManagerFactory(verifier)))) {
            var accepted = acceptOne(listener);
            try (var socket = dial(TlsMaterial.sslContext(gone, "stays7"), listener)) {
                socket.startHandshake();
                socket.getOutputStream().write(42);
                socket.getOutputStream().flush();
                socket.getInputStream().read();
            } catch (IOException expected) {
                // the server's alert may reach the client as an exception
            }
            assertThatThrownBy(accepted::join).hasRootCauseInstanceOf(CertificateException.class)
                    .rootCause().hasMessageContaining("is revoked");
        }
    }

    /** PKIX has the last word: a member certificate with a critical extension nobody knows is refused. */
    @Test
    void refusesALeafWithAnUnknownCriticalExtension() throws Exception {
        var keys = MemberKeys.generate();
        X509Certificate odd = memberCertificate(keys, "odd1", true);
        assertThatThrownBy(() -> CA.verifier().verify(List.of(odd)))
                .isInstanceOf(CertificateException.class)
                .hasMessageContaining("certificate of member odd1 fails PKIX validation against the cluster CA "
                        + CA.fingerprint());
        // the same certificate without the unknown extension passes
        assertThat(CA.verifier().verify(List.of(memberCertificate(keys, "odd1", false)))).isEqualTo("odd1");
    }

    /** A member certificate from {@link #CA}, with an unknown critical extension if {@code oddExtension}. */
    private static X509Certificate memberCertificate(MemberKeys keys, String memberId, boolean oddExtension)
            throws Exception {
        var b = new JcaX509v3CertificateBuilder(CA.certificate(), BigInteger.valueOf(oddExtension ? 77 : 78),
                Date.from(Instant.now().minusSeconds(60)), Date.from(Instant.now().plusSeconds(3600)),
                new javax.security.auth.x500.X500Principal("CN=nexar member " + memberId), keys.publicKey());
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        b.addExtension(Extension.subjectAlternativeName, false, new org.bouncycastle.asn1.x509.GeneralNames(
                new org.bouncycastle.asn1.x509.GeneralName(
                        org.bouncycastle.asn1.x509.GeneralName.uniformResourceIdentifier,
                        io.nexar.transport.quic.MemberIdentity.uri(memberId))));
        if (oddExtension) {
            b.addExtension(new org.bouncycastle.asn1.ASN1ObjectIdentifier("1.3.6.1.4.1.55555.1"), true,
                    new org.bouncycastle.asn1.DEROctetString(new byte[] {1}));
        }
        return Certificates.sign(b, CA.privateKey());
    }

    @Test
    void mutualTlsHandshakeSucceedsBetweenMembersAndNamesThePeer() throws Exception {
        MemberCredentials server = CA.issueSelf("server1");
        MemberCredentials client = CA.issueSelf("client1");
        try (var listener = listen(TlsMaterial.sslContext(server))) {
            var accepted = acceptOne(listener);
            try (var socket = dial(TlsMaterial.sslContext(client, "server1"), listener)) {
                socket.startHandshake();
                socket.getOutputStream().write(42);
                socket.getOutputStream().flush();
                assertThat(socket.getSession().getProtocol()).isEqualTo("TLSv1.3");
                assertThat(CA.verifier().verify(socket.getSession(), "server1")).isEqualTo("server1");
                assertThat(accepted.get(10, TimeUnit.SECONDS)).isEqualTo("client1");
            }
        }
    }

    @Test
    void serverRefusesAClientFromAnotherCa() throws Exception {
        MemberCredentials server = CA.issueSelf("server1");
        MemberCredentials stranger = OTHER_CA.issueSelf("client1");
        try (var listener = listen(TlsMaterial.sslContext(server))) {
            var accepted = acceptOne(listener);
            // The stranger trusts our CA (as if it had stolen the fingerprint) but holds a certificate of another CA.
            SSLContext ctx = TlsMaterial.sslContext(stranger, TlsMaterial.trustManagerFactory(CA.certificate()));
            try (var socket = dial(ctx, listener)) {
                assertThatThrownBy(() -> {
                    socket.startHandshake();
                    socket.getOutputStream().write(1);
                    socket.getOutputStream().flush();
                    socket.getInputStream().read();
                }).isInstanceOf(IOException.class);
            }
            assertThatThrownBy(() -> accepted.get(10, TimeUnit.SECONDS))
                    .hasRootCauseInstanceOf(CertificateException.class)
                    .rootCause().hasMessageContaining("not by the cluster CA " + CA.fingerprint());
        }
    }

    @Test
    void serverRefusesAClientWithoutACertificate() throws Exception {
        MemberCredentials server = CA.issueSelf("server1");
        try (var listener = listen(TlsMaterial.sslContext(server))) {
            var accepted = acceptOne(listener);
            SSLContext ctx = TlsMaterial.sslContext(null, TlsMaterial.trustManagerFactory(CA.certificate()));
            try (var socket = dial(ctx, listener)) {
                assertThatThrownBy(() -> {
                    socket.startHandshake();
                    socket.getInputStream().read();
                }).isInstanceOf(IOException.class);
            }
            assertThatThrownBy(() -> accepted.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(SSLException.class);
        }
    }

    @Test
    void clientRefusesAServerThatIsNotTheExpectedMember() throws Exception {
        MemberCredentials server = CA.issueSelf("server1");
        MemberCredentials client = CA.issueSelf("client1");
        try (var listener = listen(TlsMaterial.sslContext(server))) {
            acceptOne(listener);
            try (var socket = dial(TlsMaterial.sslContext(client, "server2"), listener)) {
                assertThatThrownBy(socket::startHandshake).isInstanceOf(SSLException.class)
                        .rootCause().hasMessageContaining("certificate of member server1, expected member server2");
            }
        }
    }

    private static SSLServerSocket listen(SSLContext ctx) throws IOException {
        var s = (SSLServerSocket) ctx.getServerSocketFactory().createServerSocket(0, 4,
                InetAddress.getLoopbackAddress());
        s.setSSLParameters(TlsMaterial.serverParameters());
        return s;
    }

    private static SSLSocket dial(SSLContext ctx, SSLServerSocket listener) throws IOException {
        var s = (SSLSocket) ctx.getSocketFactory().createSocket();
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort()), 5000);
        s.setSSLParameters(TlsMaterial.clientParameters());
        s.setSoTimeout(10_000);
        return s;
    }

    /**
     * Accepts one connection, handshakes, reads one byte and completes with the client's member id. The future
     * completes before the socket is closed: closing a TLS 1.3 server socket waits for the peer's close_notify.
     */
    private static CompletableFuture<String> acceptOne(SSLServerSocket listener) {
        var result = new CompletableFuture<String>();
        Thread.ofVirtual().start(() -> {
            try (var s = (SSLSocket) listener.accept()) {
                s.setSoTimeout(10_000);
                s.startHandshake();
                s.getInputStream().read();
                result.complete(CA.verifier().verify(s.getSession(), null));
            } catch (IOException | CertificateException | RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }
}
