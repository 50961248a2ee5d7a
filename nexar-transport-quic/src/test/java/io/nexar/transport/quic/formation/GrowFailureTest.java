package io.nexar.transport.quic.formation;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.ClusterFormationException;
import io.nexar.Communicator;
import io.nexar.NexarConfig;
import io.nexar.ReduceOp;
import io.nexar.internal.protocol.EnrolmentMessage.Admission;
import io.nexar.internal.protocol.EnrolmentMessage.JoinAccepted;
import io.nexar.internal.protocol.EnrolmentMessage.JoinRequest;
import io.nexar.internal.protocol.EnrolmentMessage.PeerTable;
import io.nexar.testkit.Await;
import io.nexar.transport.quic.QuicTransportProvider;
import io.nexar.transport.quic.security.JoinString;
import io.nexar.transport.quic.security.MemberKeys;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker the seed admits but no member can reach (it advertised a UDP port nobody listens on): every member's
 * grow() fails naming it, nobody admits it, and the world communicator goes on unchanged.
 */
@Timeout(90)
class GrowFailureTest {

    private static <T> List<Object> all(List<Communicator> cs, Function<Communicator, T> body) throws Exception {
        var futures = new ArrayList<CompletableFuture<Object>>();
        for (Communicator c : cs) {
            var f = new CompletableFuture<Object>();
            Thread.ofVirtual().start(() -> {
                try {
                    f.complete(body.apply(c));
                } catch (Throwable t) {
                    f.complete(t); // a failure is a result here
                }
            });
            futures.add(f);
        }
        var out = new ArrayList<Object>();
        for (var f : futures) {
            out.add(f.get(60, TimeUnit.SECONDS));
        }
        return out;
    }

    @Test
    void shouldAdmitNobodyWhenAMemberCannotReachTheNewcomer() throws Exception {
        NexarConfig config = NexarConfig.builder().ignoreEnvironment().collectiveTimeout(Duration.ofSeconds(3))
                .build();
        var members = new ArrayList<Communicator>();
        try (var seed = SeedWorkerFormationTest.seed(2, "127.0.0.1:0", Duration.ofSeconds(30))) {
            var joins = new ArrayList<CompletableFuture<Communicator>>();
            for (int i = 0; i < 2; i++) {
                var f = new CompletableFuture<Communicator>();
                Thread.ofVirtual().start(() -> {
                    try {
                        f.complete(new QuicTransportProvider().join(seed.joinString(), -1, config,
                                Duration.ofSeconds(30)));
                    } catch (Throwable t) {
                        f.completeExceptionally(t);
                    }
                });
                joins.add(f);
            }
            for (var j : joins) {
                members.add(j.get(40, TimeUnit.SECONDS));
            }
            members.sort(java.util.Comparator.comparingInt(Communicator::rank));

            int deadPort;
            try (var probe = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
                deadPort = probe.getLocalPort(); // closed below: nobody answers there
            }
            var token = JoinString.parse(seed.joinString()).token();
            try (var ghost = RawEnrolmentClient.connect(seed.joinString())) {
                byte[] csr = MemberKeys.generate().csr();
                ghost.send(new JoinRequest(token.proof(ghost.challenge().nonce(), csr), -1, csr,
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), deadPort), null, true));
                Await.until(() -> seed.waiting() > 0, Duration.ofSeconds(20),
                        "the ghost's join request waits at the seed");
                assertThat(seed.waiting()).isEqualTo(1);

                List<Object> outcomes = all(members, Communicator::grow);
                for (Object o : outcomes) {
                    assertThat(o).isInstanceOf(ClusterFormationException.class);
                    assertThat(((Throwable) o).getMessage()).contains("world ranks [2] were not admitted")
                            .contains("the world communicator is unchanged");
                }
                // the seed did admit it: its answer names rank 2 of a world of 3
                assertThat(ghost.read()).isInstanceOfSatisfying(JoinAccepted.class,
                        a -> assertThat(a.rank()).isEqualTo(2));
                assertThat(ghost.read()).isInstanceOf(PeerTable.class);
                assertThat(ghost.read()).isInstanceOfSatisfying(Admission.class,
                        a -> assertThat(a.members()).containsExactly(0, 1));
            }
            // unchanged: the two members compute together, and the next grow() (nobody waits) does nothing
            assertThat(all(members, c -> c.worldSize())).containsOnly(2);
            for (Object sum : all(members, c -> {
                float[] x = {c.rank() + 1};
                c.allReduce(x, ReduceOp.SUM);
                return x[0];
            })) {
                assertThat(sum).isEqualTo(3f);
            }
            assertThat(all(members, c -> c.grow().grew())).containsOnly(false);
        } finally {
            for (Communicator c : members) {
                c.close();
            }
        }
    }
}
