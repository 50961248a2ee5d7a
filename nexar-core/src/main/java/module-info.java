/**
 * nexar-java core: the public API ({@code io.nexar}), the device SPI, the transport SPI, and internal packages
 * (wire protocol, point-to-point matching, in-process transport) that are exported only to nexar's own modules.
 */
module io.nexar {
    exports io.nexar;
    exports io.nexar.device;
    exports io.nexar.spi;
    exports io.nexar.rpc;

    exports io.nexar.internal.protocol to io.nexar.testkit, io.nexar.transport.quic, io.nexar.cli;
    exports io.nexar.internal.transport to io.nexar.testkit, io.nexar.transport.quic, io.nexar.cli;
    exports io.nexar.internal.p2p to io.nexar.testkit, io.nexar.transport.quic, io.nexar.cli;
    exports io.nexar.internal.comm to io.nexar.testkit, io.nexar.transport.quic, io.nexar.cli;
    exports io.nexar.internal.collective to io.nexar.testkit, io.nexar.transport.quic, io.nexar.cli;
    exports io.nexar.internal.util to io.nexar.testkit, io.nexar.transport.quic, io.nexar.cli;
    exports io.nexar.internal.cluster to io.nexar.testkit, io.nexar.transport.quic, io.nexar.cli;
    exports io.nexar.internal.config to io.nexar.testkit, io.nexar.transport.quic, io.nexar.cli;
    exports io.nexar.internal.jfr to io.nexar.testkit, io.nexar.transport.quic, io.nexar.cli;
    exports io.nexar.internal.topology to io.nexar.testkit, io.nexar.transport.quic, io.nexar.cli;

    requires jdk.jfr;
    requires org.slf4j;

    uses io.nexar.spi.TransportProvider;
}
