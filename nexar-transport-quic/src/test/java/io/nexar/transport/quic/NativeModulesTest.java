package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class NativeModulesTest {

    @Test
    void shouldNamePlatformsAsNettysNativeModulesDo() {
        assertThat(NativeModules.platform("Linux", "amd64")).isEqualTo("linux.x86_64");
        assertThat(NativeModules.platform("Linux", "aarch64")).isEqualTo("linux.aarch_64");
        assertThat(NativeModules.platform("Mac OS X", "aarch64")).isEqualTo("osx.aarch_64");
        assertThat(NativeModules.platform("Windows 11", "amd64")).isEqualTo("windows.x86_64");
    }

    @Test
    void shouldGiveNoHintOnTheClassPath() {
        assertThat(NativeModules.class.getModule().isNamed()).isFalse();
        assertThat(NativeModules.hint()).isEmpty();
    }
}
