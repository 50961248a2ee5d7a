package io.nexar.transport.quic;

import static io.nexar.transport.quic.GrowFixtures.all;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.Communicator;
import io.nexar.Growth;
import io.nexar.NexarConfig;
import io.nexar.ReduceOp;
import io.nexar.transport.quic.formation.SeedOptions;
import io.nexar.transport.quic.formation.SeedRenewal;
import io.nexar.transport.quic.formation.SeedServer;
import io.nexar.transport.quic.security.ClusterCa;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Certificate renewal without restarting the job (docs/security.md section 6): members with certificates of a few
 * seconds renew them from the seed at two thirds of their life while collectives run, past the original
 * certificates' expiry; a growth after that expiry (new QUIC connections and bulk lanes, checked by a newcomer that
 * refuses expired certificates) succeeds; and the seed renews only a valid certificate of its CA, for the same key.
 */
@Timeout(150)
class CertificateRenewalTest {
    private static final Duration JOIN = Duration.ofSeconds(40);
    /** Long enough to form on a loaded machine, short enough to expire twice during the test. */
    private static final Duration VALIDITY = Duration.ofSeconds(12);

    private static CompletableFuture<Communicator> join(String joinString, NexarConfig config) {
        return GrowFixtures.join(joinString, config, JOIN);
    }

    @Test
    void shouldKeepCollectivesRunningAcrossRenewalsAndAdmitANewcomerAfterTheFirstCertificatesExpired()
            throws Exception {
        var options = SeedOptions.builder(2).bind("127.0.0.1:0").ca(QuicTestCluster.CA)
                .formationDeadline(Duration.ofSeconds(30)).certValidity(VALIDITY).build();
        NexarConfig config = NexarConfig.builder().ignoreEnvironment().worldMaxSize(3).build();
        var members = new ArrayList<Communicator>();
        Communicator newcomer = null;
        try (var seed = SeedServer.start(options)) {
            var a = join(seed.joinString(), config);
            var b = join(seed.joinString(), config);
            members.add(a.get(60, TimeUnit.SECONDS));
            members.add(b.get(60, TimeUnit.SECONDS));
            // the first certificates were issued before the joins returned: they expire before this
            Instant firstExpiry = Instant.now().plus(VALIDITY);
            members.sort(java.util.Comparator.comparingInt(Communicator::rank));

            int iterations = 0;
            while (Instant.now().isBefore(firstExpiry.plusSeconds(1))) {
                int n = iterations % 64 == 0 ? 512 * 1024 : 4; // now and then 2 MiB: the TCP bulk lane
                for (float[] s : all(members, c -> {
                    float[] x = new float[n];
                    java.util.Arrays.fill(x, c.rank() + 1);
                    c.allReduce(x, ReduceOp.SUM);
                    return x;
                })) {
                    assertThat(s[0]).isEqualTo(3f);
                    assertThat(s[n - 1]).isEqualTo(3f);
                }
                iterations++;
            }
            System.out.println(iterations + " allReduce rounds across the renewal, until " + Instant.now()
                    + " (first certificates expired by " + firstExpiry + ")");

            // new connections after the expiry: the newcomer checks the members' (renewed) certificates
            var joining = join(seed.joinString(), NexarConfig.builder().ignoreEnvironment().worldMaxSize(3)
                    .joinElastic(true).build());
            assertThat(all(members, GrowFixtures::growUntilAdmitted)).containsOnly(new Growth(2, 3, false));
            newcomer = joining.get(60, TimeUnit.SECONDS);
            assertThat(newcomer.grow()).isEqualTo(new Growth(2, 3, true));
            var world = List.of(members.get(0), members.get(1), newcomer);
            for (float[] s : all(world, c -> {
                float[] x = new float[512 * 1024];
                java.util.Arrays.fill(x, c.rank() + 1);
                c.allReduce(x, ReduceOp.SUM);
                return x;
            })) {
                assertThat(s[0]).isEqualTo(6f);
                assertThat(s[s.length - 1]).isEqualTo(6f);
            }
        } finally {
            if (newcomer != null) {
                newcomer.close();
            }
            for (Communicator c : members) {
                c.close();
            }
        }
    }

    @Test
    void shouldRenewOnlyAValidCertificateOfItsCaForTheSameKey() throws Exception {
        var options = SeedOptions.builder(1).bind("127.0.0.1:0").ca(QuicTestCluster.CA)
                .formationDeadline(Duration.ofSeconds(30)).certValidity(Duration.ofMinutes(5)).build();
        try (var seed = SeedServer.start(options)) {
            String js = seed.joinString();
            MemberCredentials current = QuicTestCluster.CA.issueSelf("m-renew", Duration.ofMinutes(1));
            MemberCredentials renewed = SeedRenewal.renew(js, current, Duration.ofSeconds(20));
            assertThat(renewed.memberId()).isEqualTo("m-renew");
            assertThat(renewed.leaf().getPublicKey()).isEqualTo(current.leaf().getPublicKey());
            assertThat(renewed.leaf().getNotAfter()).isAfter(current.leaf().getNotAfter());
            assertThat(renewed.chain().getLast()).isEqualTo(QuicTestCluster.CA.certificate());

            MemberCredentials foreign = ClusterCa.generate().issueSelf("m-foreign", Duration.ofMinutes(1));
            assertThatThrownBy(() -> SeedRenewal.renew(js, new MemberCredentials(foreign.privateKey(),
                    foreign.chain(), QuicTestCluster.CA.certificate(), "m-foreign"), Duration.ofSeconds(20)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("did not renew the certificate of member m-foreign")
                    .hasMessageContaining("not a valid member certificate of this cluster")
                    .hasMessageContaining("(BAD_CSR)");

            // somebody else's certificate with the requester's own key: the CSR's key is not the certificate's
            MemberCredentials other = QuicTestCluster.CA.issueSelf("m-other", Duration.ofMinutes(1));
            assertThatThrownBy(() -> SeedRenewal.renew(js, new MemberCredentials(current.privateKey(),
                    other.chain(), QuicTestCluster.CA.certificate(), "m-other"), Duration.ofSeconds(20)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("bad CSR");
        }
    }
}
