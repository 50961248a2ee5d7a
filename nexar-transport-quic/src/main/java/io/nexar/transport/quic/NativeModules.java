package io.nexar.transport.quic;

import io.netty.handler.codec.quic.Quic;
import io.netty.handler.ssl.OpenSsl;
import java.util.Locale;

/**
 * On the module path, Netty's native libraries (QUIC, BoringSSL, epoll) come in one module per platform, such as
 * {@code io.netty.codec.quic.linux.x86_64}, that no module requires: the JVM leaves them out unless the command
 * line adds them. This says how when a native library did not load.
 */
final class NativeModules {
    private NativeModules() {
    }

    /** A hint to append to an unavailability message, or "" if none applies (class path, or everything loaded). */
    static String hint() {
        if (!NativeModules.class.getModule().isNamed() || Quic.isAvailable() && OpenSsl.isAvailable()) {
            return "";
        }
        String platform = platform(System.getProperty("os.name"), System.getProperty("os.arch"));
        String epoll = platform.startsWith("linux.") ? ",io.netty.transport.epoll." + platform : "";
        return " (on the module path, add Netty's native modules for this platform: --add-modules"
                + " io.netty.codec.quic." + platform + ",io.netty.internal.tcnative.openssl." + platform + epoll
                + ", or --add-modules ALL-MODULE-PATH)";
    }

    /** Netty's name for a platform in its native module names: {@code linux.x86_64}, {@code osx.aarch_64}, ... */
    static String platform(String osName, String osArch) {
        String os = osName.toLowerCase(Locale.ROOT);
        os = os.startsWith("mac") || os.startsWith("darwin") ? "osx" : os.startsWith("windows") ? "windows"
                : os.startsWith("linux") ? "linux" : os.replaceAll("[^a-z0-9]", "");
        String arch = switch (osArch.toLowerCase(Locale.ROOT)) {
            case "amd64", "x86_64", "x86-64" -> "x86_64";
            case "aarch64", "arm64" -> "aarch_64";
            default -> osArch.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "");
        };
        return os + "." + arch;
    }
}
