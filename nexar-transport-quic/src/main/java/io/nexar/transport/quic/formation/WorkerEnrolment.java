package io.nexar.transport.quic.formation;

import io.nexar.ClusterFormationException;
import io.nexar.internal.config.Units;
import io.nexar.transport.quic.security.JoinString;
import io.nexar.transport.quic.security.PinnedCaTrustManager;
import io.nexar.transport.quic.security.TlsMaterial;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A worker's side of enrolment: connect to the seed named by a join string (retrying with backoff while it is
 * unreachable), authenticate it by the pinned CA fingerprint, prove the join token, send a CSR for a key generated
 * here, and receive the rank, the certificate chain and the peer table. With a token-only join string (no CA
 * fingerprint) the seed is authenticated instead by its SEED_PROOF: a proof of the token bound to this TLS session
 * and covering the CA it presented (docs/security.md).
 *
 * <p>Every failure is a {@link ClusterFormationException} whose message says what happened: the seed presented
 * another CA than the join string pins, the seed refused the join (with its reason), the seed stayed unreachable,
 * or the deadline passed waiting for the cluster to form. Only an unreachable seed is retried; a refusal or an
 * authentication failure is final. This class checks the arguments and opens the TLS socket to the seed; one join,
 * with its retries, is a {@code WorkerAttempt}.
 */
public final class WorkerEnrolment {

    private static final Logger LOG = LoggerFactory.getLogger(WorkerEnrolment.class);
    /** How often a worker that cannot reach its seed says that it is still trying. */
    static final Duration PROGRESS_EVERY = Duration.ofSeconds(10);
    private static final int CONNECT_TIMEOUT_MILLIS = 5000;

    private WorkerEnrolment() {
    }

    /**
     * Joins the cluster of {@code joinString}; blocks until the cluster has formed or {@code deadline} passes.
     *
     * @param joinString {@code nexar://HOST:PORT?token=...&ca=sha256:...}
     * @param requestedRank the rank to ask for, or -1 for any
     * @param quicAddress where this worker listens for QUIC; a wildcard address is replaced by the seed with the
     *                    address this worker connects from
     * @param bulkAddress where this worker listens for the TCP bulk lane, or null
     * @param deadline how long to try, from now
     * @return the rank, world size, credentials and peer table
     * @throws IllegalArgumentException if the join string or an argument is malformed
     * @throws ClusterFormationException if the join fails
     */
    public static Enrolment join(String joinString, int requestedRank, InetSocketAddress quicAddress,
                                 InetSocketAddress bulkAddress, Duration deadline) {
        if (requestedRank < -1) {
            throw new IllegalArgumentException("requestedRank " + requestedRank + " is less than -1 (any rank)");
        }
        return attempt(joinString, requestedRank, quicAddress, bulkAddress, deadline, false, PROGRESS_EVERY,
                LOG::warn);
    }

    /**
     * Joins the running cluster of {@code joinString} (ELASTIC_JOIN_REQUEST): blocks until rank 0 of the cluster
     * admits this worker at a {@code grow()}, or {@code deadline} passes.
     *
     * @return the world rank, the world size, credentials, the members' and newcomers' table and the admission
     * @throws ClusterFormationException if the join fails or nobody admits this worker in time
     * @see #join
     */
    public static Enrolment joinRunning(String joinString, InetSocketAddress quicAddress,
                                        InetSocketAddress bulkAddress, Duration deadline) {
        return attempt(joinString, -1, quicAddress, bulkAddress, deadline, true, PROGRESS_EVERY, LOG::warn);
    }

    /**
     * Checks the arguments both joins share and runs the attempt; while the seed is unreachable, says so to
     * {@code progress} every {@code progressEvery}: {@code waiting for seed 127.0.0.1:7000 (10s of 60s): ...}.
     */
    static Enrolment attempt(String joinString, int requestedRank, InetSocketAddress quicAddress,
                             InetSocketAddress bulkAddress, Duration deadline, boolean elastic,
                             Duration progressEvery, Consumer<String> progress) {
        JoinString js = JoinString.parse(joinString);
        Objects.requireNonNull(quicAddress, "quicAddress");
        if (quicAddress.isUnresolved() || bulkAddress != null && bulkAddress.isUnresolved()) {
            throw new IllegalArgumentException("advertised addresses must be resolved IP addresses");
        }
        if (deadline == null || deadline.isNegative() || deadline.isZero()) {
            throw new IllegalArgumentException("deadline " + (deadline == null ? null : Units.formatRounded(deadline))
                    + " is not a positive duration");
        }
        return new WorkerAttempt(js, requestedRank, quicAddress, bulkAddress, deadline,
                System.nanoTime() + deadline.toNanos(), elastic, progressEvery.toNanos(), progress).run();
    }

    /**
     * Connects to the seed of {@code js} and completes the TLS handshake, authenticating the seed by the pinned CA
     * ({@code tm}); the socket's read timeout is {@code timeoutMillis}.
     */
    static SSLSocket open(JoinString js, PinnedCaTrustManager tm, long timeoutMillis) throws IOException {
        SSLContext context = TlsMaterial.sslContext(tm);
        SSLSocket socket = null;
        try {
            socket = (SSLSocket) context.getSocketFactory().createSocket();
            socket.setSSLParameters(TlsMaterial.clientParameters());
            socket.connect(js.seedAddress(), (int) Math.min(CONNECT_TIMEOUT_MILLIS, timeoutMillis));
            socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeoutMillis));
            socket.startHandshake();
            return socket;
        } catch (IOException e) {
            WorkerAttempt.close(socket);
            throw e;
        }
    }
}
