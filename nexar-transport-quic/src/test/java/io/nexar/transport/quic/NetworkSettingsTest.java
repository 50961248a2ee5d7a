package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.ClusterFormationException;
import io.nexar.Communicator;
import io.nexar.InvalidConfigurationException;
import io.nexar.NexarConfig;
import io.nexar.PortRange;
import io.nexar.ReduceOp;
import io.nexar.transport.quic.formation.SeedOptions;
import io.nexar.transport.quic.formation.SeedServer;
import io.nexar.transport.quic.security.ClusterCa;
import io.nexar.transport.quic.security.JoinString;
import io.nexar.transport.quic.security.JoinToken;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Settings {@code bind.address}, {@code advertise.address} and {@code port.range} through a real join: a seed on
 * 127.0.0.1 and two members formed with them; the seed's peer table shows what each member published, and an
 * allReduce proves the members reached each other at those addresses.
 */
@Timeout(90)
class NetworkSettingsTest {
    private static final Duration FORMATION = Duration.ofSeconds(30);
    private static final ClusterCa CA = ClusterCa.generate();

    private static NexarConfig.Builder config() {
        return NexarConfig.builder().ignoreEnvironment();
    }

    /** Forms two members with {@code config} and returns the seed's peer table, after an allReduce on both. */
    private static List<PeerInfo> formTwo(NexarConfig config) throws Exception {
        try (var seed = SeedServer.start(SeedOptions.builder(2).bind("127.0.0.1:0").ca(CA)
                .formationDeadline(FORMATION).build())) {
            var provider = new QuicTransportProvider();
            var joins = new ArrayList<CompletableFuture<Communicator>>();
            for (int r = 0; r < 2; r++) {
                int rank = r;
                joins.add(CompletableFuture.supplyAsync(() -> provider.join(seed.joinString(), rank, config,
                        FORMATION), t -> Thread.ofVirtual().start(t)));
            }
            List<Communicator> world = new ArrayList<>();
            try {
                for (var f : joins) {
                    world.add(f.get(60, TimeUnit.SECONDS));
                }
                var sums = world.stream().map(c -> CompletableFuture.supplyAsync(() -> {
                    int[] x = {c.rank() + 1};
                    c.allReduce(x, ReduceOp.SUM);
                    return x[0];
                }, t -> Thread.ofVirtual().start(t))).toList();
                for (var s : sums) {
                    assertThat(s.get(30, TimeUnit.SECONDS)).isEqualTo(3);
                }
                return seed.awaitFormed(Duration.ofSeconds(5));
            } finally {
                world.forEach(Communicator::close);
            }
        }
    }

    @Test
    void shouldListenWithinThePortRangeAndPublishThosePorts() throws Exception {
        int base = ListenersTest.basePort("shouldListenWithinThePortRangeAndPublishThosePorts");
        var range = new PortRange(base, base + 19);
        List<PeerInfo> table = formTwo(config().portRange(range).build());
        for (PeerInfo p : table) {
            assertThat(p.quicAddress().getPort()).isBetween(range.first(), range.last());
            assertThat(p.bulkAddress().getPort()).isBetween(range.first(), range.last());
            assertThat(p.quicAddress().getAddress().getHostAddress()).isEqualTo("127.0.0.1");
        }
    }

    @Test
    void shouldPublishTheAdvertisedAddressInThePeerTable() throws Exception {
        assumeIpv6();
        // every interface is bound; the members dial each other at ::1, which the seed could not have guessed: it
        // sees the enrolments come from 127.0.0.1 and would publish that for a wildcard
        List<PeerInfo> table = formTwo(config().bindAddress("::").advertiseAddress("::1").build());
        for (PeerInfo p : table) {
            assertThat(p.quicAddress().getAddress()).isEqualTo(InetAddress.getByName("::1"));
            assertThat(p.bulkAddress().getAddress()).isEqualTo(InetAddress.getByName("::1"));
        }
    }

    private static void assumeIpv6() {
        try (var probe = new ServerSocket(0, 1, InetAddress.getByName("::1"))) {
            Assumptions.assumeTrue(probe.isBound());
        } catch (IOException e) {
            Assumptions.abort("this machine has no IPv6 loopback: " + e);
        }
    }

    @Test
    void shouldBindIpv6LoopbackWhileTheSeedIsOnIpv4() throws Exception {
        assumeIpv6();
        List<PeerInfo> table = formTwo(config().bindAddress("[::1]").build());
        for (PeerInfo p : table) {
            assertThat(p.quicAddress().getAddress()).isEqualTo(InetAddress.getByName("::1"));
            assertThat(p.bulkAddress().getAddress()).isEqualTo(InetAddress.getByName("::1"));
        }
        List<PeerInfo> v4 = formTwo(config().bindAddress("127.0.0.1").build());
        assertThat(v4).allSatisfy(p -> assertThat(p.quicAddress().getAddress().getHostAddress())
                .isEqualTo("127.0.0.1"));
    }

    @Test
    void shouldFailTheJoinNamingTheVariableWhenNoPortOfTheRangeIsFree() throws Exception {
        int base = ListenersTest.basePort("shouldFailTheJoinNamingTheVariableWhenNoPortOfTheRangeIsFree");
        String js = JoinString.tokenOnly("127.0.0.1", base + 50, JoinToken.generate()).format();
        var cfg = NexarConfig.builder().environment(Map.of("NEXAR_PORT_RANGE", base + "-" + base))
                .systemProperties(Map.of()).build();
        try (var taken = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), base))) {
            assertThatThrownBy(() -> new QuicTransportProvider().join(js, -1, cfg, FORMATION))
                    .isInstanceOf(ClusterFormationException.class)
                    .hasMessageContaining("no free UDP (QUIC) port on 127.0.0.1 in NEXAR_PORT_RANGE=" + base);
        }
    }

    @Test
    void shouldRefuseABindAddressThatIsNotThisHostsAndAWildcardToAdvertise() {
        String js = JoinString.tokenOnly("127.0.0.1", 7, JoinToken.generate()).format();
        var provider = new QuicTransportProvider();
        assertThatThrownBy(() -> provider.join(js, -1, config().bindAddress("192.0.2.1").build(), FORMATION))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("bind.address=\"192.0.2.1\": expected an address of one of this host's"
                        + " interfaces");
        assertThatThrownBy(() -> provider.join(js, -1, config().advertiseAddress("0.0.0.0").build(), FORMATION))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("advertise.address=\"0.0.0.0\": expected an address the other members can"
                        + " dial, not a wildcard");
    }
}
