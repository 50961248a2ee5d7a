package io.nexar.transport.quic.formation;

import io.nexar.ClusterFormationException;
import io.nexar.ErrorContext;
import io.nexar.Operation;
import io.nexar.ProtocolException;
import io.nexar.internal.config.Units;
import io.nexar.internal.protocol.EnrolmentCodec;
import io.nexar.internal.protocol.EnrolmentMessage.Admission;
import io.nexar.internal.protocol.EnrolmentMessage.JoinAccepted;
import io.nexar.internal.protocol.EnrolmentMessage.JoinChallenge;
import io.nexar.internal.protocol.EnrolmentMessage.JoinRefused;
import io.nexar.internal.protocol.EnrolmentMessage.JoinRequest;
import io.nexar.internal.protocol.EnrolmentMessage.PeerTable;
import io.nexar.internal.protocol.EnrolmentMessage.SeedProof;
import io.nexar.internal.protocol.JoinRefusal;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.util.LogContext;
import io.nexar.transport.quic.MemberCredentials;
import io.nexar.transport.quic.PeerInfo;
import io.nexar.transport.quic.security.ClusterCa;
import io.nexar.transport.quic.security.JoinString;
import io.nexar.transport.quic.security.JoinToken;
import io.nexar.transport.quic.security.MemberKeys;
import io.nexar.transport.quic.security.PeerVerifier;
import io.nexar.transport.quic.security.PinnedCaTrustManager;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker's join ({@link WorkerEnrolment}), with its retries: connects to the seed (retrying with backoff while it
 * is unreachable, and saying every so often that it is still trying), authenticates it, proves the join token, sends
 * the CSR of a key generated here, and reads the rank, certificate chain and peer table (or, for an elastic join, the
 * admission). Used once, by one thread.
 */
final class WorkerAttempt {
    /** The enrolment's logger: what a join says is logged under {@link WorkerEnrolment}. */
    private static final Logger LOG = LoggerFactory.getLogger(WorkerEnrolment.class);
    private static final long FIRST_BACKOFF_MILLIS = 100;
    private static final long MAX_BACKOFF_MILLIS = 2000;
    private final JoinString js;
    private final int requestedRank;
    private final InetSocketAddress quicAddress;
    private final InetSocketAddress bulkAddress;
    private final Duration deadline;
    private final long endNanos;
    private final String seed;
    private final MemberKeys keys = MemberKeys.generate();
    private final byte[] csr = keys.csr();
    private final boolean elastic;
    private final long progressEveryNanos;
    private final Consumer<String> progress;

    WorkerAttempt(JoinString js, int requestedRank, InetSocketAddress quicAddress, InetSocketAddress bulkAddress,
                  Duration deadline, long endNanos, boolean elastic, long progressEveryNanos,
                  Consumer<String> progress) {
        this.elastic = elastic;
        this.progressEveryNanos = progressEveryNanos;
        this.progress = progress;
        this.js = js;
        this.requestedRank = requestedRank;
        this.quicAddress = quicAddress;
        this.bulkAddress = bulkAddress;
        this.deadline = deadline;
        this.endNanos = endNanos;
        this.seed = js.hostPort();
    }

    Enrolment run() {
        long backoff = FIRST_BACKOFF_MILLIS;
        int attempts = 0;
        long startNanos = endNanos - deadline.toNanos();
        long nextProgressNanos = startNanos + progressEveryNanos;
        while (true) {
            attempts++;
            var tm = js.tokenOnly() ? PinnedCaTrustManager.forTokenProof(ClusterCa.SEED_MEMBER_ID)
                    : new PinnedCaTrustManager(js.caFingerprint(), ClusterCa.SEED_MEMBER_ID);
            SSLSocket socket = null;
            try {
                socket = connect(tm);
                return enrol(socket, tm);
            } catch (Unreachable e) {
                long leftMillis = (endNanos - System.nanoTime()) / 1_000_000;
                if (leftMillis <= 0) {
                    throw failure("seed at " + seed + " unreachable after " + attempts + " attempts within "
                            + Units.formatRounded(deadline) + ": " + describe(e.getCause()), e.getCause());
                }
                long now = System.nanoTime();
                if (now - nextProgressNanos >= 0) {
                    progress.accept("waiting for seed " + seed + " (" + Units.formatRounded(Duration.ofSeconds(
                            (now - startNanos) / 1_000_000_000L)) + " of " + Units.formatRounded(deadline) + "): "
                            + describe(e.getCause()));
                    nextProgressNanos = now + progressEveryNanos;
                }
                LOG.debug("seed at {} unreachable (attempt {}): {}; retrying in {} ms", seed, attempts,
                        e.getCause().toString(), Math.min(backoff, leftMillis));
                pause(Math.min(backoff, leftMillis));
                backoff = Math.min(MAX_BACKOFF_MILLIS, backoff * 2);
            } finally {
                close(socket);
            }
        }
    }

    /** Connects and handshakes. Failures before the seed is authenticated are retryable, except the pin. */
    private SSLSocket connect(PinnedCaTrustManager tm) {
        try {
            return WorkerEnrolment.open(js, tm, leftMillis());
        } catch (IOException e) {
            if (tm.failure() != null) {
                String why = tm.failure().getMessage();
                throw failure("seed at " + seed + (why.startsWith("presented") ? " " : ": ") + why,
                        tm.failure());
            }
            throw new Unreachable(e);
        }
    }

    private Enrolment enrol(SSLSocket socket, PinnedCaTrustManager tm) {
        try {
            var in = socket.getInputStream();
            var out = socket.getOutputStream();
            Message first = FrameIo.read(in, -1, EnrolmentCodec.MAX_ENROLMENT_FRAME_BYTES);
            if (!(first instanceof JoinChallenge challenge)) {
                throw refusedOrUnexpected(first, "JOIN_CHALLENGE");
            }
            byte[] exporter = js.tokenOnly() ? JoinToken.exporter(socket.getSession()) : null;
            byte[] proof = js.tokenOnly() ? js.token().workerProof(exporter, challenge.nonce(), csr)
                    : js.token().proof(challenge.nonce(), csr);
            FrameIo.write(out, new JoinRequest(proof, requestedRank, csr, quicAddress, bulkAddress, elastic));
            socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, leftMillis()));
            if (js.tokenOnly()) {
                authenticateByToken(FrameIo.read(in, -1, EnrolmentCodec.MAX_ENROLMENT_FRAME_BYTES), exporter,
                        challenge.nonce(), tm.pinnedCa());
            }
            Message answer = FrameIo.read(in, -1, EnrolmentCodec.MAX_ENROLMENT_FRAME_BYTES);
            if (!(answer instanceof JoinAccepted accepted)) {
                throw refusedOrUnexpected(answer, "JOIN_ACCEPTED");
            }
            MemberCredentials credentials = credentials(accepted, tm.pinnedCa());
            Message table = FrameIo.read(in, -1, EnrolmentCodec.maxPeerTableFrameBytes(accepted.worldSize()));
            if (!(table instanceof PeerTable peers)) {
                throw refusedOrUnexpected(table, "PEER_TABLE");
            }
            List<PeerInfo> infos = peers(peers, accepted);
            Admission admission = null;
            if (elastic) {
                Message a = FrameIo.read(in, -1, EnrolmentCodec.maxPeerTableFrameBytes(accepted.worldSize()) * 2);
                if (!(a instanceof Admission adm) || !admits(adm, accepted.rank(), infos)) {
                    throw failure("seed at " + seed + " sent " + a + " instead of an admission that lists rank "
                            + accepted.rank() + " and the peer table's ranks");
                }
                admission = adm;
            }
            socket.setSoTimeout(1000); // bounds close(), which waits for the seed's close_notify
            try (var mdc = LogContext.scope(accepted.rank(), accepted.worldSize(), -1)) {
                LOG.info("join: joined the cluster at {} as rank {} of {} (member {}){}", seed, accepted.rank(),
                        accepted.worldSize(), accepted.memberId(), elastic ? " while it was running" : "");
            }
            return new Enrolment(accepted.rank(), accepted.worldSize(), credentials, infos, admission);
        } catch (SocketTimeoutException e) {
            throw failure("deadline of " + Units.formatRounded(deadline) + " passed waiting for the seed at " + seed
                    + (elastic ? " to admit this worker (no grow() of the running cluster admitted it)"
                    : " to form the cluster"), e);
        } catch (EOFException e) {
            throw failure("seed at " + seed + " closed the connection before answering", e);
        } catch (ProtocolException e) {
            throw failure("seed at " + seed + " violated the enrolment protocol: " + e.getMessage(), e);
        } catch (SSLException e) {
            throw failure("TLS with the seed at " + seed + " failed: " + e.getMessage(), e);
        } catch (IOException e) {
            throw failure("connection to the seed at " + seed + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Token-only join: the seed's answer to the request must be its channel-bound proof of the token, covering
     * the CA it presented; only then is that CA trusted (it is the cluster CA every later check pins).
     */
    private void authenticateByToken(Message m, byte[] exporter, byte[] nonce, X509Certificate ca) {
        if (!(m instanceof SeedProof p)) {
            throw refusedOrUnexpected(m, "SEED_PROOF");
        }
        byte[] caDer;
        try {
            caDer = ca.getEncoded();
        } catch (CertificateException e) {
            throw failure("seed at " + seed + " presented a CA certificate that cannot be encoded", e);
        }
        if (!js.token().verifySeedProof(p.proof(), exporter, nonce, csr, caDer)) {
            throw failure("seed at " + seed + " did not prove that it knows the join token (NEXAR_TOKEN): the"
                    + " seed has another token, or something between this worker and the seed answered in its"
                    + " place; its CA " + ClusterCa.fingerprint(ca) + " is not trusted");
        }
        LOG.debug("seed at {} proved the join token on this TLS session; pinning its CA {}", seed,
                ClusterCa.fingerprint(ca));
    }

    private ClusterFormationException refusedOrUnexpected(Message m, String expected) {
        if (m instanceof JoinRefused r) {
            String hint = r.code() == JoinRefusal.BAD_TOKEN && js.tokenOnly()
                    ? ": this worker's join token (NEXAR_TOKEN) differs from the seed's" : "";
            return failure("seed at " + seed + " refused the join: " + r.reason() + " (" + r.code() + ")"
                    + hint);
        }
        return failure("seed at " + seed + " sent " + m.type() + ", expected " + expected);
    }

    /** Checks the issued chain against the pinned CA and this worker's key. */
    private MemberCredentials credentials(JoinAccepted a, X509Certificate ca) {
        if (requestedRank >= 0 && a.rank() != requestedRank) {
            throw failure("seed at " + seed + " assigned rank " + a.rank() + " instead of the requested "
                    + requestedRank);
        }
        List<X509Certificate> chain = new ArrayList<>();
        try {
            var factory = CertificateFactory.getInstance("X.509");
            for (byte[] der : a.certChain()) {
                chain.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(der)));
            }
            String pinned = ClusterCa.fingerprint(ca);
            if (!ClusterCa.fingerprint(chain.getLast()).equals(pinned)) {
                throw new CertificateException("the chain does not end with the pinned CA " + pinned);
            }
            new PeerVerifier(ca).verify(chain, a.memberId());
        } catch (GeneralSecurityException | ClassCastException e) {
            throw failure("seed at " + seed + " issued an unusable certificate: " + e.getMessage(), e);
        }
        try {
            return keys.credentials(chain, ca, a.memberId());
        } catch (IllegalArgumentException e) {
            throw failure("seed at " + seed + " issued a certificate for another key", e);
        }
    }

    /** The admission lists this worker as a newcomer, and its members and newcomers are the table's ranks. */
    private static boolean admits(Admission a, int rank, List<PeerInfo> table) {
        var ranks = new java.util.TreeSet<Integer>();
        for (int m : a.members()) {
            ranks.add(m);
        }
        boolean self = false;
        for (var e : a.newcomers()) {
            ranks.add(e.rank());
            self |= e.rank() == rank;
        }
        return self && ranks.equals(new java.util.TreeSet<>(table.stream().map(PeerInfo::rank).toList()));
    }

    private List<PeerInfo> peers(PeerTable table, JoinAccepted a) {
        if (!elastic && table.entries().size() != a.worldSize()) {
            throw failure("seed at " + seed + " sent a peer table of " + table.entries().size()
                    + " ranks for a world of " + a.worldSize());
        }
        List<PeerInfo> out = table.entries().stream().map(PeerInfo::of).toList();
        PeerInfo self = out.stream().filter(p -> p.rank() == a.rank()).findFirst().orElse(null);
        if (self == null || !self.memberId().equals(a.memberId())) {
            throw failure("seed at " + seed + " lists member " + (self == null ? "none" : self.memberId())
                    + " at rank " + a.rank() + ", which it assigned to this worker (" + a.memberId() + ")");
        }
        return out;
    }

    /** Milliseconds to the deadline, at least 1 (a socket timeout of 0 would mean forever). */
    private long leftMillis() {
        return Math.max(1, (endNanos - System.nanoTime()) / 1_000_000);
    }

    private void pause(long millis) {
        try {
            Thread.sleep(millis); // production backoff between connection attempts, not a test wait
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure("interrupted while waiting to retry the seed at " + seed, e);
        }
    }

    private static ClusterFormationException failure(String detail) {
        return failure(detail, null);
    }

    private static ClusterFormationException failure(String detail, Throwable cause) {
        return new ClusterFormationException(ErrorContext.of(Operation.JOIN), "failed: " + detail, cause);
    }

    /** Closes {@code socket}, if any, ignoring a failure. */
    static void close(SSLSocket socket) {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // the enrolment is over either way
            }
        }
    }

    /** The message of a failure to reach the seed, or its class when it has none. */
    private static String describe(Throwable t) {
        return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
    }

    /** A retryable failure to reach the seed. */
    private static final class Unreachable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unreachable(IOException cause) {
            super(cause);
        }
    }
}
