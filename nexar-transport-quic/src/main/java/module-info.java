/**
 * The network transport of nexar: QUIC between every pair of ranks, the mutual-TLS bulk lanes, the cluster CA and
 * seed/worker formation. It is found through {@link io.nexar.spi.TransportProvider}; its packages are exported only
 * to nexar's own command line (which runs the seed), never to the world.
 *
 * <p>On the module path Netty's native libraries live in modules that nothing requires (one per platform, such as
 * {@code io.netty.codec.quic.linux.x86_64}): add them with {@code --add-modules} (see README, "Module path").
 */
module io.nexar.transport.quic {
    requires io.nexar;

    requires io.netty.buffer;
    requires io.netty.codec;
    requires io.netty.codec.classes.quic;
    requires io.netty.common;
    requires io.netty.handler;
    requires io.netty.transport;
    requires io.netty.transport.classes.epoll;
    // netty-handler requires it only statically: without it OpenSsl (the BoringSSL engine of the bulk lanes) is absent.
    requires io.netty.tcnative.classes.openssl;
    requires org.bouncycastle.pkix;
    requires org.bouncycastle.provider;
    requires org.bouncycastle.util;
    requires org.slf4j;

    exports io.nexar.transport.quic to io.nexar.cli;
    exports io.nexar.transport.quic.formation to io.nexar.cli;
    exports io.nexar.transport.quic.security to io.nexar.cli;

    provides io.nexar.spi.TransportProvider with io.nexar.transport.quic.QuicTransportProvider;
}
