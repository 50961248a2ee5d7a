package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.NexarConfig;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * When a member renews its certificate and warns that it runs out, and what it says (setting {@code cert.validity}).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CertificateLifeTest {

    @Test
    void shouldRenewAtTwoThirdsAndWarnAfterFourFifthsOfTheLifeAndNameTheSetting() {
        X509Certificate leaf = QuicTestCluster.CA.issueSelf("m-short", Duration.ofSeconds(100)).chain().getFirst();
        Instant from = CertificateLife.issued(leaf); // notBefore is backdated a minute for clock skew
        Instant to = leaf.getNotAfter().toInstant();
        Duration life = Duration.between(from, to);
        System.out.println("certificate valid " + life + " from " + from);
        assertThat(life).isEqualTo(Duration.ofSeconds(100));

        assertThat(CertificateLife.untilWarning(leaf, from)).isEqualTo(
                Duration.ofMillis((long) (life.toMillis() * CertificateLife.WARN_AT)));
        assertThat(CertificateLife.untilRenewal(leaf, from)).isEqualTo(
                Duration.ofMillis((long) (life.toMillis() * CertificateLife.RENEW_AT)));
        assertThat(CertificateLife.untilRenewal(leaf, to)).isZero();
        assertThat(CertificateLife.untilWarning(leaf, to.minusSeconds(1))).isZero();
        assertThat(CertificateLife.untilWarning(leaf, to.plusSeconds(1))).isZero();

        assertThat(CertificateLife.warning(3, "m-short", leaf, to.minusSeconds(10), "no seed to renew it from"))
                .startsWith("rank 3: the certificate of member m-short expires at " + to + " (in 10s)")
                .contains("(setting cert.validity at the seed that issued it)")
                .contains("connections this member makes or accepts after that (a late bulk lane, a growth) are"
                        + " refused, open ones go on")
                .contains("It was not renewed (no seed to renew it from)");
        assertThat(CertificateLife.warning(3, "m-short", leaf, to.plusSeconds(1), "x"))
                .contains("m-short expired at " + to);
    }

    @Test
    void shouldReadTheValidityFromTheConfiguration() {
        assertThat(NexarConfig.defaults().certValidity()).isEqualTo(Duration.ofHours(24));
        var config = NexarConfig.builder().ignoreEnvironment().environment(Map.of("NEXAR_CERT_VALIDITY", "90m"))
                .build();
        assertThat(config.certValidity()).isEqualTo(Duration.ofMinutes(90));
    }
}
