package io.nexar.transport.quic;

import io.netty.handler.codec.quic.Quic;
import io.netty.handler.ssl.OpenSsl;

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
        return " (on the module path, add Netty's native modules for this platform: --add-modules"
                + " io.netty.codec.quic.linux.x86_64,io.netty.internal.tcnative.openssl.linux.x86_64,"
                + "io.netty.transport.epoll.linux.x86_64 on Linux x86-64, or --add-modules ALL-MODULE-PATH)";
    }
}
