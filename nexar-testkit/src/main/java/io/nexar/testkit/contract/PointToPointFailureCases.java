package io.nexar.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.Communicator;
import io.nexar.CommunicatorClosedException;
import io.nexar.ErrorCode;
import io.nexar.OperationTimeoutException;
import io.nexar.PeerFailedException;
import io.nexar.testkit.RankFailedException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The failure part of the point-to-point contract: timeouts and hang reports that name what a rank waits for, dup
 * and sub-communicators that isolate traffic and translate ranks, peers that fail or close, caller mistakes.
 * {@link PointToPointContract} extends it, so every transport runs these cases.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
public abstract class PointToPointFailureCases extends MpiPointToPointCases {

    /** For {@link PointToPointContract}. */
    protected PointToPointFailureCases() {
    }

    @Test
    void shouldTimeOutNamingOperationRankTagAndPeer() {
        try (var cluster = start(2, config().p2pTimeout(Duration.ofMillis(200)).build())) {
            cluster.run(c -> {
                if (c.rank() == 1) {
                    assertThatThrownBy(() -> c.recv(0, 3, new int[1]))
                            .isInstanceOfSatisfying(OperationTimeoutException.class, e -> {
                                assertThat(e.timeout()).isEqualTo(Duration.ofMillis(200));
                                assertThat(e.peer()).hasValue(0);
                                assertThat(e.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
                            })
                            .hasMessage("recv on rank 1 (world 2, comm 0, tag 3, peer 0) timed out after 200ms"
                                    + " waiting for"
                                    + " rank 0");
                }
                return null;
            });
        }
    }

    /**
     * A deadlock of two receives (rank 0 waits for tag 5 from rank 1, rank 1 for tag 6 from rank 0): after
     * {@code hang.report.after} each rank's report names the other rank's receive, and the timeout carries it.
     */
    @Test
    void aHangReportOfARecvNamesWhatThePeerWaitsFor() {
        try (var cluster = start(2, config().hangReportAfter(Duration.ofMillis(300))
                .p2pTimeout(Duration.ofSeconds(4)).build())) {
            var messages = cluster.onEachRank(c -> {
                int other = 1 - c.rank();
                try {
                    c.recv(other, 5 + c.rank(), new int[1]);
                    return "the recv returned";
                } catch (OperationTimeoutException e) {
                    return e.getMessage() + "\n--\n" + c.diagnostics();
                }
            });
            for (int r = 0; r < 2; r++) {
                int other = 1 - r;
                assertThat(messages.get(r)).as("rank %d", r)
                        .contains("nexar hang report: world rank " + r + " of 2 is in recv from rank " + other
                                + " tag " + (5 + r) + " on communicator 0")
                        .contains("world rank " + other + ": recv from rank " + r + " tag " + (5 + other))
                        .contains("last hang report: nexar hang report:");
            }
        }
    }

    @Test
    void shouldIsolateADupFromItsParentWithTheSameTags() {
        try (var cluster = start(3)) {
            cluster.run(c -> {
                Communicator dup = c.dup();
                assertThat(dup.id()).isNotEqualTo(c.id());
                assertThat(dup.rank()).isEqualTo(c.rank());
                assertThat(dup.worldSize()).isEqualTo(c.worldSize());
                int next = (c.rank() + 1) % 3;
                int prev = (c.rank() + 2) % 3;
                // same destination and tag on both, sent dup first and received world first
                for (int i = 0; i < 20; i++) {
                    dup.send(next, 5, new int[] {2000 + i});
                    c.send(next, 5, new int[] {1000 + i});
                }
                var x = new int[1];
                for (int i = 0; i < 20; i++) {
                    c.recv(prev, 5, x);
                    assertThat(x[0]).as("world message %d", i).isEqualTo(1000 + i);
                }
                for (int i = 0; i < 20; i++) {
                    dup.recv(prev, 5, x);
                    assertThat(x[0]).as("dup message %d", i).isEqualTo(2000 + i);
                }
                dup.close();
                assertThatThrownBy(() -> dup.send(next, 5, new int[1])).isInstanceOf(CommunicatorClosedException.class);
                c.send(next, 6, new int[] {7}); // the world is still open
                c.recv(prev, 6, x);
                assertThat(x[0]).isEqualTo(7);
                return null;
            });
        }
    }

    @Test
    void shouldTranslateSubCommunicatorRanksAndNameThemInErrors() {
        try (var cluster = start(4)) {
            var blocked = new CountDownLatch(1);
            var evensSplit = new CountDownLatch(2);
            assertThatThrownBy(() -> cluster.run(c -> {
                // key -rank: the odd communicator is {world 3, world 1}
                Communicator sub = c.split(c.rank() % 2, -c.rank());
                if (c.rank() % 2 == 0) {
                    evensSplit.countDown(); // their part of split's collectives is done: rank 3 may fail now
                    return null;
                }
                assertThat(sub.rank()).isEqualTo(c.rank() == 3 ? 0 : 1);
                if (c.rank() == 3) {
                    sub.send(1, 1, new int[] {33});
                    assertThat(blocked.await(20, TimeUnit.SECONDS)).isTrue();
                    assertThat(evensSplit.await(20, TimeUnit.SECONDS)).isTrue();
                    throw new IllegalStateException("boom on world rank 3");
                }
                var x = new int[1];
                sub.recv(0, 1, x);
                assertThat(x[0]).isEqualTo(33);
                assertThatThrownBy(() -> sub.recv(2, 1, x)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("2");
                blocked.countDown();
                sub.recv(0, 1, x);
                return null;
            })).isInstanceOfSatisfying(RankFailedException.class, e -> {
                assertThat(e.rank()).isEqualTo(3);
                assertThat(e.getSuppressed()).hasSize(1).allSatisfy(s -> assertThat(s.getCause())
                        .isInstanceOf(PeerFailedException.class)
                        .hasMessageStartingWith("recv on rank 1 (world 2, comm ")
                        // in the communicator's numbering, or (when the abort policy failed the receive first) as
                        // the world rank
                        .satisfiesAnyOf(m -> assertThat(m).hasMessageContaining("cannot complete: rank 0 (world rank"
                                + " 3) failed"), m -> assertThat(m).hasMessageContaining("cannot complete: world rank 3"
                                + " failed")));
            });
        }
    }

    @Test
    void shouldFailWaitingRanksFastWhenAPeerFails() {
        try (var cluster = start(3)) {
            var blocked = new CountDownLatch(2);
            assertThatThrownBy(() -> cluster.run(c -> {
                if (c.rank() == 0) {
                    assertThat(blocked.await(20, TimeUnit.SECONDS)).isTrue();
                    throw new IllegalStateException("boom on rank 0");
                }
                blocked.countDown();
                c.recv(0, 1, new int[1]);
                return null;
            })).isInstanceOfSatisfying(RankFailedException.class, e -> {
                assertThat(e.rank()).isZero();
                assertThat(e.getCause()).hasMessage("boom on rank 0");
                // "cannot complete: rank 0 failed" for a receive posted before the failure was known, "cannot run:
                // world rank 0 failed ... (recovery policy abort)" for one posted after it
                assertThat(e.getSuppressed()).hasSize(2).allSatisfy(s -> assertThat(s.getCause())
                        .isInstanceOf(PeerFailedException.class)
                        .hasMessageContaining("rank 0 failed (java.lang.IllegalStateException: boom on rank 0)"));
            });
        }
    }

    @Test
    void shouldRejectCallerMistakesBeforeSending() {
        try (var cluster = start(2)) {
            Communicator c = cluster.communicator(0);
            assertThatThrownBy(() -> c.send(2, 0, new int[1])).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("dest 2 is not in [0, 2)");
            assertThatThrownBy(() -> c.recv(-1, 0, new int[1])).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("src -1 is not in [0, 2)");
            assertThatThrownBy(() -> c.send(1, -5, new int[1])).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("tag -5 is not in [0, 2147483647]");
            assertThatThrownBy(() -> c.send(1, 0, (float[]) null)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("data must not be null");
        }
    }

    @Test
    void shouldRefuseOperationsAfterCloseAndTellPeers() {
        try (var cluster = start(2)) {
            Communicator zero = cluster.communicator(0);
            Communicator one = cluster.communicator(1);
            zero.close();
            zero.close(); // idempotent
            assertThatThrownBy(() -> zero.send(1, 0, new int[1])).isInstanceOf(CommunicatorClosedException.class)
                    .hasMessage("send on rank 0 (world 2, comm 0, tag 0, peer 1) failed: the communicator was closed");
            assertThatThrownBy(() -> one.recv(0, 0, new int[1])).isInstanceOf(PeerFailedException.class)
                    .hasMessageStartingWith("recv on rank 1 (world 2, comm 0, tag 0, peer 0) cannot complete:"
                            + " rank 0 left");
            assertThatThrownBy(() -> one.send(0, 0, new int[1])).isInstanceOf(PeerFailedException.class);
        }
    }
}
