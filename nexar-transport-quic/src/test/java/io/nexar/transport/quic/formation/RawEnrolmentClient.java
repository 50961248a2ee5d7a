package io.nexar.transport.quic.formation;

import io.nexar.internal.protocol.EnrolmentCodec;
import io.nexar.internal.protocol.EnrolmentMessage.JoinChallenge;
import io.nexar.internal.protocol.Message;
import io.nexar.transport.quic.security.ClusterCa;
import io.nexar.transport.quic.security.JoinString;
import io.nexar.transport.quic.security.PinnedCaTrustManager;
import io.nexar.transport.quic.security.TlsMaterial;
import java.io.IOException;
import java.io.OutputStream;
import javax.net.ssl.SSLSocket;

/** A hand-driven enrolment client for attacks the real worker never makes: forged CSRs, replays, huge frames. */
final class RawEnrolmentClient implements AutoCloseable {

    private final SSLSocket socket;

    private RawEnrolmentClient(SSLSocket socket) {
        this.socket = socket;
    }

    /** Connects to the seed of {@code joinString} with the real pinned-CA check, and handshakes. */
    static RawEnrolmentClient connect(String joinString) throws IOException {
        JoinString js = JoinString.parse(joinString);
        var tm = new PinnedCaTrustManager(js.caFingerprint(), ClusterCa.SEED_MEMBER_ID);
        var socket = (SSLSocket) TlsMaterial.sslContext(tm).getSocketFactory().createSocket();
        socket.setSSLParameters(TlsMaterial.clientParameters());
        socket.connect(js.seedAddress(), 5000);
        socket.setSoTimeout(20_000);
        socket.startHandshake();
        return new RawEnrolmentClient(socket);
    }

    JoinChallenge challenge() throws IOException {
        return (JoinChallenge) read();
    }

    Message read() throws IOException {
        return FrameIo.read(socket.getInputStream(), -1, EnrolmentCodec.maxPeerTableFrameBytes(64));
    }

    void send(Message m) throws IOException {
        FrameIo.write(socket.getOutputStream(), m);
    }

    void sendRaw(byte[] bytes) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(bytes);
        out.flush();
    }

    @Override
    public void close() throws IOException {
        socket.setSoTimeout(1000);
        socket.close();
    }
}
