package io.nexar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class SeedlessLaunchTest {
    private static final String TOKEN = SeedlessLaunch.newToken();

    @Test
    void shouldMakeRandomTokensOf256Bits() {
        assertThat(Base64.getUrlDecoder().decode(TOKEN)).hasSize(32);
        assertThat(SeedlessLaunch.newToken()).isNotEqualTo(TOKEN).hasSize(43);
    }

    @Test
    void shouldBuildTheTokenOnlyJoinStringOfARank() {
        var launch = SeedlessLaunch.builder(2, 4).seed("::1", 29500).token(TOKEN)
                .formationTimeout(Duration.ofSeconds(5)).build();
        assertThat(launch.joinString()).isEqualTo("nexar://[::1]:29500?token=" + TOKEN + "&auth=token");
        assertThat(launch.rank()).isEqualTo(2);
        assertThat(launch.worldSize()).isEqualTo(4);
        assertThat(launch.formationTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(launch.toString()).doesNotContain(TOKEN).contains("token ***");
    }

    @Test
    void shouldSpellABase64TokenAsBase64Url() {
        byte[] bytes = new byte[24];
        java.util.Arrays.fill(bytes, (byte) 0xfb); // '+' and '/' in base64
        String plain = Base64.getEncoder().encodeToString(bytes);
        var launch = SeedlessLaunch.builder(1, 2).seed("10.0.0.5", 7000).token(plain).build();
        assertThat(launch.token()).isEqualTo(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
    }

    @Test
    void shouldLetOnlyRankZeroAskForAnyPort() {
        var launch = SeedlessLaunch.builder(0, 2).seed("127.0.0.1", 0).token(TOKEN).build();
        assertThat(launch.seedPort()).isZero();
        assertThatThrownBy(launch::joinString).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> SeedlessLaunch.builder(1, 2).seed("127.0.0.1", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("seed port 0 is not in [1, 65535] (only rank 0 may give 0)");
    }

    @Test
    void shouldRefuseBadValuesNamingThemButNeverTheToken() {
        assertThatThrownBy(() -> SeedlessLaunch.builder(4, 4)).hasMessage("rank 4 is not in [0, 4)");
        assertThatThrownBy(() -> SeedlessLaunch.builder(0, 0)).hasMessage("worldSize 0 is not >= 1");
        assertThatThrownBy(() -> SeedlessLaunch.builder(0, 2).token("c2hvcnQ")).hasMessage("token has 5 bytes, not 16 to 64");
        assertThatThrownBy(() -> SeedlessLaunch.builder(0, 2).token("not base64 at all!"))
                .hasMessage("token is not base64url or base64 (18 characters)");
        assertThatThrownBy(() -> SeedlessLaunch.builder(0, 2).token(TOKEN).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("seed(host, port)");
        assertThatThrownBy(() -> SeedlessLaunch.builder(0, 2).seed("h", 1).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("token");
        assertThatThrownBy(() -> SeedlessLaunch.builder(0, 2).formationTimeout(Duration.ZERO))
                .hasMessage("formation timeout PT0S is not positive");
    }
}
