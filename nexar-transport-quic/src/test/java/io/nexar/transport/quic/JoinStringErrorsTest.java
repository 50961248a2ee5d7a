package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.InvalidConfigurationException;
import io.nexar.transport.quic.security.JoinToken;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 18 item 5: a malformed join string is a configuration error (setting {@code joinString}, which
 * {@code Nexar.join()} renames to the variable it came from) saying what is wrong, never showing the token.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class JoinStringErrorsTest {
    private static final String TOKEN = JoinToken.generate().encoded();
    private static final String CA = "sha256:" + "ab".repeat(32);

    @Test
    void shouldReportGarbageAsAConfigurationError() {
        assertThatThrownBy(() -> QuicTransportProvider.parse("garbage"))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("configure failed: joinString=\"garbage\": expected "
                        + QuicTransportProvider.EXPECTED_JOIN_STRING + "; join string must start with nexar://");
    }

    @Test
    void shouldReportAPortOutOfRangeHidingTheToken() {
        assertThatThrownBy(() -> QuicTransportProvider.parse("nexar://127.0.0.1:99999?token=" + TOKEN + "&ca=" + CA))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("joinString=\"nexar://127.0.0.1:99999?token=***&ca=" + CA + "\"")
                .hasMessageEndingWith("join string port 99999 is not in [1, 65535]")
                .hasMessageNotContaining(TOKEN);
    }

    @Test
    void shouldReportAMissingTokenOrCa() {
        assertThatThrownBy(() -> QuicTransportProvider.parse("nexar://127.0.0.1:7000?ca=" + CA))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageEndingWith("join string is missing the token parameter (token=SECRET)");
        assertThatThrownBy(() -> QuicTransportProvider.parse("nexar://127.0.0.1:7000?token=" + TOKEN))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("join string is missing the ca parameter")
                .hasMessageNotContaining(TOKEN);
    }
}
