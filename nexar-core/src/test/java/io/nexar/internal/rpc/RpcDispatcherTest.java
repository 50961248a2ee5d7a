package io.nexar.internal.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.ErrorCode;
import io.nexar.ErrorContext;
import io.nexar.Operation;
import io.nexar.PeerFailedException;
import io.nexar.ProtocolException;
import io.nexar.internal.collective.Group;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.transport.ContextSource;
import io.nexar.internal.transport.Lane;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.Deadline;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import io.nexar.internal.protocol.WireFormat;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The callee's choices that the contract tests do not pin down: error codes and text fitting. */
@Timeout(10)
class RpcDispatcherTest {

    @Test
    void shouldChooseTheErrorCodeFromWhatTheHandlerThrew() {
        assertThat(RpcDispatcher.codeOf(new IllegalArgumentException())).isEqualTo(ErrorCode.INVALID_ARGUMENT);
        assertThat(RpcDispatcher.codeOf(new IllegalStateException())).isEqualTo(ErrorCode.FAILED_PRECONDITION);
        assertThat(RpcDispatcher.codeOf(new UnsupportedOperationException()))
                .isEqualTo(ErrorCode.FAILED_PRECONDITION);
        assertThat(RpcDispatcher.codeOf(new InterruptedException())).isEqualTo(ErrorCode.CANCELLED);
        assertThat(RpcDispatcher.codeOf(new PeerFailedException(ErrorContext.of(Operation.RPC), "x")))
                .isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(RpcDispatcher.codeOf(new java.io.IOException())).isEqualTo(ErrorCode.ABORTED);
        assertThat(RpcDispatcher.codeOf(new StackOverflowError())).isEqualTo(ErrorCode.ABORTED);
    }

    @Test
    void shouldFitTextsToTheWireLimitAtACharacterBoundary() {
        assertThat(RpcDispatcher.Texts.fit("short")).isEqualTo("short");
        String euros = "\u20ac".repeat(400); // 3 bytes each: 1200 bytes
        String fitted = RpcDispatcher.Texts.fit(euros);
        assertThat(fitted.getBytes(StandardCharsets.UTF_8).length).isEqualTo(1023);
        assertThat(fitted).isEqualTo("\u20ac".repeat(341));
        assertThat(RpcDispatcher.Texts.fit("a\ud800b")).isEqualTo("a?b");
        assertThat(RpcDispatcher.Texts.fit("x".repeat(5000)).length()).isEqualTo(WireFormat.MAX_TEXT_BYTES);
    }

    /** Issue 14 item 8: a request id sent twice names this rank, the world, the communicator and the peer. */
    @Test
    void shouldNameRankWorldCommunicatorAndPeerWhenARequestArrivesTwice() {
        var release = new CountDownLatch(1);
        var bindings = new ConcurrentHashMap<Integer, RpcDispatcher.Binding>();
        bindings.put(7, new RpcDispatcher.Binding(new Group(7, 2, new int[] {0, 1, 2, 3}), Map.of(5, (c, q) -> {
            release.await();
            return null;
        })));
        var dispatcher = new RpcDispatcher(new SilentTransport(2, 4), bindings, Duration.ofSeconds(1), 8, 1 << 20);
        var request = new Message.RpcRequest(7, 42, 5, Duration.ofSeconds(5).toNanos(), MemorySegment.NULL);
        try {
            dispatcher.onRequest(1, request, new byte[0]);
            assertThatThrownBy(() -> dispatcher.onRequest(1, request, new byte[0]))
                    .isInstanceOf(ProtocolException.class)
                    .hasMessage("rpc on rank 2 (world 4, comm 7, peer 1) failed: rank 1 sent RPC request 42 again while"
                            + " it was running");
        } finally {
            release.countDown();
        }
    }

    /** A transport of world rank {@code rank} that drops what is sent. */
    private record SilentTransport(int rank, int worldSize) implements Transport {
        @Override
        public void send(int peer, Lane lane, Message message, Deadline deadline, ContextSource context) {
        }

        @Override
        public void exclude(int peer, String why) {
        }

        @Override
        public void close() {
        }
    }
}
