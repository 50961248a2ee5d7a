package io.nexar.transport.quic;

import io.nexar.ProtocolException;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.InboundHandler;
import io.nexar.internal.transport.Progress;
import io.nexar.transport.quic.bulk.BulkHost;
import io.nexar.transport.quic.bulk.BulkPeer;
import io.nexar.transport.quic.security.PeerVerifier;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A {@link QuicTransport} as its bulk lanes see it ({@link BulkHost}): what they need of it, read from the transport,
 * its peer links and table, and its event loops (which run the lanes' setup deadlines). Stateless beyond those.
 */
final class QuicBulkHost implements BulkHost {
    private final QuicTransport transport;
    private final NettyIo io;

    QuicBulkHost(QuicTransport transport, NettyIo io) {
        this.transport = transport;
        this.io = io;
    }

    @Override
    public int rank() {
        return transport.rank();
    }

    @Override
    public int worldSize() {
        return transport.worldSize();
    }

    @Override
    public boolean isClosing() {
        return transport.isClosing();
    }

    @Override
    public InboundHandler handler() {
        return transport.handler();
    }

    @Override
    public long maxFrameBytes() {
        return transport.maxFrameBytes();
    }

    @Override
    public Duration heartbeatTimeout() {
        return transport.config().heartbeatTimeout();
    }

    @Override
    public Message.Hello hello() {
        return transport.hello();
    }

    @Override
    public PeerVerifier verifier() {
        return transport.verifier();
    }

    @Override
    public Progress lanes() {
        return transport.links();
    }

    @Override
    public BulkPeer peer(int rank) {
        return transport.link(rank);
    }

    @Override
    public String memberId(int rank) {
        return transport.table().get(rank).memberId();
    }

    @Override
    public OptionalInt rankOf(String memberId) {
        PeerTable table = transport.table();
        return table == null ? OptionalInt.empty() : table.rankOf(memberId);
    }

    @Override
    public ProtocolException protocolError(int peer, String what) {
        return Connection.protocolError(transport, peer, what);
    }

    @Override
    public void schedule(Runnable action, long nanos) {
        try {
            io.group().next().schedule(action, Math.max(0, nanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException stopping) {
            action.run();
        }
    }
}
