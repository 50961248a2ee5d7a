package io.nexar.transport.quic.formation;

import io.nexar.ProtocolException;
import io.nexar.internal.config.Units;
import io.nexar.internal.protocol.EnrolmentCodec;
import io.nexar.internal.protocol.EnrolmentMessage.Admission;
import io.nexar.internal.protocol.EnrolmentMessage.GrowPoll;
import io.nexar.internal.protocol.EnrolmentMessage.JoinAccepted;
import io.nexar.internal.protocol.EnrolmentMessage.JoinChallenge;
import io.nexar.internal.protocol.EnrolmentMessage.JoinRefused;
import io.nexar.internal.protocol.EnrolmentMessage.JoinRequest;
import io.nexar.internal.protocol.EnrolmentMessage.PeerTable;
import io.nexar.internal.protocol.EnrolmentMessage.RenewRequest;
import io.nexar.internal.protocol.EnrolmentMessage.Renewed;
import io.nexar.internal.protocol.EnrolmentMessage.SeedProof;
import io.nexar.internal.protocol.JoinRefusal;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.WireFormat;
import io.nexar.transport.quic.PeerInfo;
import io.nexar.transport.quic.formation.FormationState.Accepted;
import io.nexar.transport.quic.formation.FormationState.Candidate;
import io.nexar.transport.quic.formation.FormationState.Outcome;
import io.nexar.transport.quic.formation.FormationState.Refused;
import io.nexar.transport.quic.security.JoinToken;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.security.SecureRandom;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One enrolment connection on the seed, run on its own virtual thread:
 *
 * <pre>
 *   TLS 1.3 handshake (the seed presents its CA-issued certificate; the worker pins the CA)
 *   -&gt; JOIN_CHALLENGE(fresh nonce)
 *   &lt;- JOIN_REQUEST(proof, requested rank, CSR, addresses)        within ioTimeout, at most 64 KiB
 *      verify the proof (constant time); a token-only worker's proof is bound to this TLS session:
 *   -&gt; SEED_PROOF(the seed's proof of the token on this session, covering the CA)     token-only workers only
 *      verify the CSR, the rank, the key's novelty; issue the certificate
 *      wait for formation, watching for the worker leaving
 *   -&gt; JOIN_ACCEPTED + PEER_TABLE, or JOIN_REFUSED(code, reason); close
 * </pre>
 *
 * An ELASTIC_JOIN_REQUEST waits instead for a member's GROW_POLL and then gets JOIN_ACCEPTED + PEER_TABLE (members
 * and newcomers) + ADMISSION. A GROW_POLL (in place of the request, from rank 0 of the running cluster, proving the
 * token over its body) is answered with ADMISSION or JOIN_REFUSED. A RENEW_REQUEST (a member renewing its certificate
 * for the same key, {@link SeedRenewal}) is answered with RENEWED or JOIN_REFUSED.
 *
 * A refusal closes this connection only; the seed keeps accepting.
 */
final class SeedConnection implements Runnable {

    private static final Logger LOG = LoggerFactory.getLogger(SeedConnection.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    /** How often a waiting connection checks whether its worker is still there. */
    private static final long WATCH_MILLIS = 100;
    /** How long closing waits for the worker's TLS close_notify. */
    private static final int CLOSE_WAIT_MILLIS = 1000;

    private final SeedServer seed;
    private final SSLSocket socket;
    private final String remote;
    /** When the seed accepted the connection: the oldest unproven one is evicted first ({@link SeedServer}). */
    final long acceptedNanos = System.nanoTime();
    /** The client proved the join token (a worker's request or rank 0's poll): never evicted for a newcomer. */
    private volatile boolean proven;
    private Candidate candidate;

    SeedConnection(SeedServer seed, SSLSocket socket) {
        this.seed = seed;
        this.socket = socket;
        this.remote = describe(socket.getInetAddress(), socket.getPort());
    }

    @Override
    public void run() {
        try (socket) {
            try {
                serve();
            } catch (ProtocolException e) { // answered before the socket closes
                refuseQuietly(new Refused(JoinRefusal.PROTOCOL_ERROR, e.getMessage()));
            } catch (SocketTimeoutException e) {
                seed.recordRefusal(remote, JoinRefusal.PROTOCOL_ERROR, "no join request within "
                        + Units.formatRounded(seed.options().ioTimeout()));
                socket.setSoTimeout(CLOSE_WAIT_MILLIS);
            }
        } catch (IOException e) {
            LOG.debug("enrolment connection from {} failed: {}", remote, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.warn("enrolment connection from {} failed unexpectedly", remote, e);
        } finally {
            seed.connectionEnded(this);
        }
    }

    private void serve() throws IOException, InterruptedException {
        socket.setSoTimeout(Math.toIntExact(Math.max(1, seed.options().ioTimeout().toMillis())));
        socket.startHandshake();
        InputStream in = socket.getInputStream();
        OutputStream out = socket.getOutputStream();
        byte[] nonce = new byte[EnrolmentCodec.NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        FrameIo.write(out, new JoinChallenge(nonce));
        Message m = FrameIo.read(in, -1, EnrolmentCodec.MAX_ENROLMENT_FRAME_BYTES);
        if (m instanceof GrowPoll poll) {
            answerPoll(out, poll, nonce);
            return;
        }
        if (m instanceof RenewRequest renewal) {
            switch (SeedRenewal.answer(seed.options(), renewal, nonce)) {
                case Renewed r -> {
                    proven = true;
                    LOG.info("seed renewed a member certificate for {} from {}",
                            Units.formatRounded(seed.options().certValidity()), remote);
                    FrameIo.write(out, r);
                    socket.setSoTimeout(CLOSE_WAIT_MILLIS);
                }
                case Refused r -> refuse(out, r);
                default -> throw new IllegalStateException("unexpected renewal answer");
            }
            return;
        }
        if (!(m instanceof JoinRequest request)) {
            refuse(out, new Refused(JoinRefusal.PROTOCOL_ERROR, "expected JOIN_REQUEST, got " + m.type()));
            return;
        }
        Outcome outcome = enrol(request, nonce, in, out);
        switch (outcome) {
            case Refused r -> refuse(out, r);
            case Accepted a -> accept(out, a);
        }
    }

    /** Rank 0 of the running cluster asks for the waiting workers: admit them and answer with the admission. */
    private void answerPoll(OutputStream out, GrowPoll poll, byte[] nonce) throws IOException {
        byte[] covered = EnrolmentCodec.pollProofInput(poll.max(), poll.communicator(), poll.generation(),
                poll.members());
        if (!seed.options().token().verify(poll.proof(), nonce, covered)) {
            refuse(out, new Refused(JoinRefusal.BAD_TOKEN, "join token proof of the GROW_POLL does not verify"));
            return;
        }
        proven = true;
        Outcome outcome = seed.state().poll(poll.max(), poll.communicator(), poll.generation(), poll.members());
        switch (outcome) {
            case Refused r -> refuse(out, r);
            case Accepted a -> {
                if (!a.admission().newcomers().isEmpty()) {
                    LOG.info("seed admitted {} waiting worker(s) as world ranks {} into the running cluster of {}",
                            a.admission().newcomers().size(), a.admission().newcomers().stream()
                                    .map(PeerInfo::rank).toList(), poll.members().length);
                }
                FrameIo.write(out, admission(a.admission()));
                socket.setSoTimeout(CLOSE_WAIT_MILLIS);
            }
        }
    }

    private static Admission admission(FormationState.Admission a) {
        return new Admission(a.communicator(), a.generation(), a.members(), entries(a.newcomers()));
    }

    private static List<PeerTable.Entry> entries(List<PeerInfo> peers) {
        return peers.stream().map(PeerInfo::entry).toList();
    }

    /** True once the client proved the join token. Any thread. */
    boolean proven() {
        return proven;
    }

    /** The client's address, for logs. */
    String remote() {
        return remote;
    }

    /** Closes the socket: unblocks this connection's thread. */
    void abort() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing to unblock; nothing more to do
        }
    }

    private Outcome enrol(JoinRequest request, byte[] nonce, InputStream in, OutputStream out)
            throws InterruptedException, IOException {
        JoinToken token = seed.options().token();
        if (!token.verify(request.proof(), nonce, request.csr())) {
            // a token-only worker (no CA pin) binds its proof to this TLS session and needs the seed's proof back
            byte[] exporter = JoinToken.exporter(socket.getSession());
            if (!token.verifyWorkerProof(request.proof(), exporter, nonce, request.csr())) {
                return new Refused(JoinRefusal.BAD_TOKEN, "join token proof does not verify: wrong token, or a proof"
                        + " made for another connection or CSR");
            }
            byte[] caDer;
            try {
                caDer = seed.options().ca().certificate().getEncoded();
            } catch (CertificateEncodingException e) {
                throw new IOException("cannot encode the CA certificate", e);
            }
            FrameIo.write(out, new SeedProof(token.seedProof(exporter, nonce, request.csr(), caDer)));
        }
        proven = true;
        String memberId = HexFormat.of().formatHex(randomBytes(16));
        X509Certificate leaf;
        try {
            leaf = seed.options().ca().issue(request.csr(), memberId, seed.options().certValidity());
        } catch (IllegalArgumentException e) {
            return new Refused(JoinRefusal.BAD_CSR, "bad CSR: " + e.getMessage());
        }
        candidate = new Candidate(request.requestedRank(), memberId, leaf, routable(request.quicAddress()),
                routable(request.bulkAddress()), request.elastic());
        Refused refused = seed.state().admit(candidate);
        if (refused != null) {
            return refused;
        }
        if (request.elastic()) {
            LOG.info("seed holds worker {} from {} until the running cluster's next grow()", memberId, remote);
        } else {
            LOG.info("seed admitted worker {} from {} (requested rank {}), {} of {} joined", memberId, remote,
                    request.requestedRank() < 0 ? "any" : request.requestedRank(), seed.state().joined(),
                    seed.options().worldSize());
        }
        return awaitOutcome(candidate, in);
    }

    /** Waits for formation; if the worker's connection ends first, the candidate leaves. */
    private Outcome awaitOutcome(Candidate candidate, InputStream in) throws InterruptedException, IOException {
        socket.setSoTimeout(1);
        while (true) {
            try {
                return candidate.outcome.get(WATCH_MILLIS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                // still forming: is the worker still there?
            } catch (ExecutionException e) {
                throw new IllegalStateException("outcome completed exceptionally", e.getCause());
            }
            int b;
            try {
                b = in.read();
            } catch (SocketTimeoutException stillThere) {
                continue;
            } catch (IOException gone) {
                b = -1;
            }
            int enrolled = seed.state().leave(candidate);
            if (enrolled > 0) {
                LOG.info("worker {} at {} left before the cluster formed; its slot is free again for {}",
                        candidate.memberId, remote, Units.formatRounded(seed.options().vacancyTimeout()));
                seed.vacated(enrolled, "worker " + candidate.memberId + " at " + remote + " left before the"
                        + " cluster formed (its connection to the seed ended: its process exited or was killed)"
                        + " and no worker took its place within "
                        + Units.formatRounded(seed.options().vacancyTimeout()));
            } else if (enrolled == 0) {
                LOG.info("elastic worker {} at {} stopped waiting", candidate.memberId, remote);
            }
            if (b >= 0) {
                return new Refused(JoinRefusal.PROTOCOL_ERROR, "unexpected data after JOIN_REQUEST");
            }
            return candidate.outcome.getNow(new Refused(JoinRefusal.PROTOCOL_ERROR, "connection closed"));
        }
    }

    private void accept(OutputStream out, Accepted a) throws IOException {
        List<byte[]> chain;
        try {
            chain = List.of(candidate.leaf.getEncoded(), seed.options().ca().certificate().getEncoded());
        } catch (CertificateEncodingException e) {
            throw new IOException("cannot encode the certificate chain", e);
        }
        FrameIo.write(out, new JoinAccepted(a.rank(), a.worldSize(), candidate.memberId, chain));
        FrameIo.write(out, new PeerTable(entries(a.peers())));
        if (a.admission() != null) {
            FrameIo.write(out, admission(a.admission()));
        }
        socket.setSoTimeout(CLOSE_WAIT_MILLIS); // bounds close(), which waits for the worker's close_notify
    }

    private void refuse(OutputStream out, Refused r) throws IOException {
        seed.recordRefusal(remote, r.code(), r.reason());
        FrameIo.write(out, new JoinRefused(r.code(), truncate(r.reason())));
        socket.setSoTimeout(CLOSE_WAIT_MILLIS);
    }

    private void refuseQuietly(Refused r) {
        try {
            refuse(socket.getOutputStream(), r);
        } catch (IOException e) {
            LOG.debug("could not send the refusal to {}: {}", remote, e.toString());
        }
    }

    /** A wildcard address advertised by a worker is replaced by the address its connection came from. */
    private InetSocketAddress routable(InetSocketAddress advertised) {
        if (advertised == null || !advertised.getAddress().isAnyLocalAddress()) {
            return advertised;
        }
        return new InetSocketAddress(socket.getInetAddress(), advertised.getPort());
    }

    /** The reason cut, on a code point boundary, to fit the wire's text limit. */
    private static String truncate(String reason) {
        String s = reason == null ? "" : reason;
        int bytes = 0;
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (bytes + n > WireFormat.MAX_TEXT_BYTES - 3) {
                return s.substring(0, i) + "...";
            }
            bytes += n;
            i += Character.charCount(cp);
        }
        return s;
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        RANDOM.nextBytes(b);
        return b;
    }

    static String describe(InetAddress address, int port) {
        String host = address.getHostAddress();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
