package io.nexar.transport.quic.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzz targets (Jazzer) for what the security package parses from outside: join strings (typed or pasted by a user,
 * copied between machines) and the PKCS#10 request a worker sends the seed. Seeds:
 * {@code src/test/resources/io/nexar/transport/quic/security/SecurityFuzzTestInputs/<method>/}; docs/testing.md.
 *
 * <p>Both document {@link IllegalArgumentException} as their only refusal; nothing else may come out.
 */
@Timeout(10)
class SecurityFuzzTest {
    private static final ClusterCa CA = ClusterCa.generate();
    private static final Pattern TOKEN = Pattern.compile("token=([^&]{16,})");

    /** Parses the input as UTF-8 text; a refusal never repeats the token, a success survives format and parse. */
    @FuzzTest
    void joinString(byte[] data) {
        String text = new String(data, StandardCharsets.UTF_8);
        JoinString js;
        try {
            js = JoinString.parse(text);
        } catch (IllegalArgumentException e) {
            assertThat(e.getMessage()).isNotBlank();
            var m = TOKEN.matcher(text);
            while (m.find()) {
                // Only characters that appear nowhere else in the input can only have come from the token.
                String rest = text.substring(0, m.start(1)) + "\n" + text.substring(m.end(1));
                if (!rest.contains(m.group(1))) {
                    assertThat(e.getMessage()).as("refusal of a join string").doesNotContain(m.group(1));
                }
            }
            return;
        }
        assertThat(JoinString.parse(js.format())).isEqualTo(js);
        assertThat(js.toString()).doesNotContain(js.token().encoded());
    }

    /** The seed's side of enrolment: a CSR from the network either gets a certificate or is refused in words. */
    @FuzzTest
    void csr(byte[] data) {
        try {
            var cert = CA.issue(data, "member-1", Duration.ofHours(1));
            assertThat(cert).isNotNull();
        } catch (IllegalArgumentException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
    }
}
