package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.transport.quic.formation.SeedRenewal;
import io.nexar.transport.quic.security.JoinString;
import io.nexar.transport.quic.security.JoinToken;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A member whose seed is gone (it exited after formation, or died) when its certificate is due for renewal (issue 16
 * item 3): the renewal through the real enrolment client fails naming the seed, is retried after a quarter of the time
 * left, and the warning at 80% of the life names the expiry, the seed's failure and what to do. Timers are played by
 * the test: each planned action is taken from a queue and run when the test says, so nothing waits for hours.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CertificateRenewalSeedGoneTest {
    private static final Duration LIFE = Duration.ofHours(3);

    /** An action the renewal planned, and after how long. */
    private record Planned(Runnable action, Duration delay) {
    }

    @Test
    void shouldRetryAndWarnNamingTheExpiryWhenTheSeedIsGone() throws Exception {
        MemberCredentials credentials = QuicTestCluster.CA.issueSelf("m-seed-gone", LIFE);
        int port;
        try (var gone = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = gone.getLocalPort(); // the seed's port, free again: its process exited
        }
        String join = JoinString.tokenOnly("127.0.0.1", port, JoinToken.generate())
                .pinning(QuicTestCluster.CA.fingerprint()).format();
        BlockingQueue<Planned> planned = new LinkedBlockingQueue<>();
        var renewal = new CertificateRenewal(3, CredentialSlot.fixed(credentials),
                current -> SeedRenewal.renew(join, current, Duration.ofSeconds(5)), (action, delay) -> {
                    planned.add(new Planned(action, delay));
                    return null;
                });
        renewal.start();
        Planned warning = planned.take();
        Planned renew = planned.take();
        System.out.println("planned: warning after " + warning.delay() + ", renewal after " + renew.delay());
        assertThat(warning.delay()).as("at 80% of the life").isBetween(Duration.ofMinutes(143),
                Duration.ofMinutes(144));
        assertThat(renew.delay()).as("at two thirds of the life").isBetween(Duration.ofMinutes(119),
                Duration.ofMinutes(120));

        renew.action().run(); // the renewal's time came: it asks the seed on a virtual thread
        Planned retry = planned.poll(20, TimeUnit.SECONDS);
        assertThat(retry).as("a retry is planned after the failed attempt").isNotNull();
        System.out.println("retry planned after " + retry.delay());
        assertThat(retry.delay()).as("a quarter of the time left (about 3 h)").isBetween(Duration.ofMinutes(44),
                Duration.ofMinutes(45));

        String text = renewal.expiryWarning();
        System.out.println(text);
        assertThat(text)
                .startsWith("rank 3: the certificate of member m-seed-gone expires at "
                        + credentials.leaf().getNotAfter().toInstant())
                .contains("last attempt: the seed at 127.0.0.1:" + port + " did not renew the certificate of member"
                        + " m-seed-gone: it cannot be reached")
                .contains("restart the job before then, or start it with a longer cert.validity");
        renewal.stop();
    }
}
