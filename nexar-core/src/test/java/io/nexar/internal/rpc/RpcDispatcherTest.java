package io.nexar.internal.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.ErrorCode;
import io.nexar.ErrorContext;
import io.nexar.Operation;
import io.nexar.PeerFailedException;
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
}
