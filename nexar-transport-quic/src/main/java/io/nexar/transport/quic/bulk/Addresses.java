package io.nexar.transport.quic.bulk;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.SocketChannel;

/**
 * Socket addresses as the transport's messages write them: {@code host:port}, or {@code [v6]:port} for IPv6. Here,
 * in the lower of the two packages, because the bulk lanes and the QUIC transport both name addresses. Stateless.
 */
public final class Addresses {
    private Addresses() {
    }

    /**
     * {@code host:port}, or {@code [v6]:port} for IPv6; any other kind of address as its {@code toString()}.
     *
     * @param address the address, or null
     * @return its text
     */
    public static String format(SocketAddress address) {
        if (!(address instanceof InetSocketAddress a)) {
            return String.valueOf(address);
        }
        String host = a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
    }

    /** The remote address of {@code channel}, formatted; {@code ?} if it has none or cannot tell. */
    static String remote(SocketChannel channel) {
        try {
            return format(channel.getRemoteAddress());
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }
}
