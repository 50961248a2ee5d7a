package io.nexar.transport.quic.formation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.ClusterFormationException;
import io.nexar.internal.protocol.EnrolmentMessage.JoinRequest;
import io.nexar.testkit.Await;
import io.nexar.transport.quic.security.ClusterCa;
import io.nexar.transport.quic.security.JoinString;
import io.nexar.transport.quic.security.JoinToken;
import io.nexar.transport.quic.security.MemberKeys;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker that dies after it enrolled but before the cluster formed (issue 16): the seed frees its slot, and unless
 * another worker takes it within the vacancy timeout, formation fails for every worker still waiting, naming the one
 * that left, instead of letting them wait for the formation deadline.
 */
@Timeout(60)
class FormationVacancyTest {
    private static final ClusterCa CA = ClusterCa.generate();
    private static final InetSocketAddress QUIC = new InetSocketAddress("127.0.0.1", 9400);
    /** Far beyond the test's timeout: a failure within it can only come from the vacancy. */
    private static final Duration FORMATION_DEADLINE = Duration.ofSeconds(120);

    private static SeedServer seed(int worldSize, Duration vacancy) throws IOException {
        return SeedServer.start(SeedOptions.builder(worldSize).bind("127.0.0.1:0").ca(CA)
                .formationDeadline(FORMATION_DEADLINE).vacancyTimeout(vacancy).build());
    }

    /** Enrols a worker by hand and returns its connection, which the test then cuts as a killed process's would be. */
    private static RawEnrolmentClient enrol(SeedServer seed) throws IOException {
        JoinToken token = JoinString.parse(seed.joinString()).token();
        byte[] csr = MemberKeys.generate().csr();
        var client = RawEnrolmentClient.connect(seed.joinString());
        client.send(new JoinRequest(token.proof(client.challenge().nonce(), csr), -1, csr, QUIC, null));
        return client;
    }

    @Test
    void shouldFailFormationForTheWaitingWorkersWhenAnEnrolledWorkerDiesAndNobodyTakesItsPlace() throws Exception {
        Duration vacancy = Duration.ofSeconds(1);
        try (var seed = seed(3, vacancy)) {
            var dying = enrol(seed);
            var waiting = Workers.start(seed.joinString(), -1, "127.0.0.1", 9410);
            SeedWorkerFormationTest.awaitJoined(seed, 2);

            long diedAt = System.nanoTime();
            dying.close(); // its process ends: the seed's connection ends
            Throwable failure = Workers.failure(waiting);
            Duration took = Duration.ofNanos(System.nanoTime() - diedAt);
            System.out.println("the waiting worker failed " + took.toMillis() + " ms after the other died: "
                    + failure.getMessage());
            assertThat(failure).isInstanceOf(ClusterFormationException.class)
                    .hasMessageContaining("left before the cluster formed")
                    .hasMessageContaining("no worker took its place within 1s")
                    .hasMessageContaining("1 of 3 workers joined");
            assertThat(took).as("vacancy 1 s, far below the formation deadline").isLessThan(Duration.ofSeconds(6));
            assertThatThrownBy(() -> seed.awaitFormed(Duration.ofSeconds(5)))
                    .isInstanceOf(ClusterFormationException.class).hasMessageContaining("left before the cluster");
        }
    }

    @Test
    void shouldFormWhenAnotherWorkerTakesTheFreedSlotWithinTheVacancyTimeout() throws Exception {
        try (var seed = seed(2, Duration.ofSeconds(30))) {
            var dying = enrol(seed);
            SeedWorkerFormationTest.awaitJoined(seed, 1);
            dying.close();
            Await.until(() -> seed.joined() == 0, Duration.ofSeconds(10),
                    "the seed sees the dead worker's connection end and frees its slot");
            var enrolments = Workers.all(List.of(Workers.start(seed.joinString(), -1, "127.0.0.1", 9420),
                    Workers.start(seed.joinString(), -1, "127.0.0.1", 9430)));
            assertThat(enrolments).extracting(Enrolment::rank).containsExactlyInAnyOrder(0, 1);
        }
    }
}
