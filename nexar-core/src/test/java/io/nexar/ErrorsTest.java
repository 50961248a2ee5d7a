package io.nexar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Every error message format and code, as users and scripts see them. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ErrorsTest {
    private static final ErrorContext COLLECTIVE = new ErrorContext(Operation.ALL_REDUCE, 2, 4, 0, 17, -1, 1);

    @Test
    void shouldDescribeContextInTheDocumentedStyle() {
        assertThat(COLLECTIVE.describe()).isEqualTo("allReduce on rank 2 (world 4, comm 0, seq 17, peer 1)");
        assertThat(ErrorContext.p2p(Operation.RECV, 1, 2, 3, 7, 0).describe())
                .isEqualTo("recv on rank 1 (world 2, comm 3, tag 7, peer 0)");
        assertThat(ErrorContext.p2p(Operation.RECV, 1, 2, 3, 7, -1).describe()) // from any source
                .isEqualTo("recv on rank 1 (world 2, comm 3, tag 7)");
        assertThat(ErrorContext.of(Operation.JOIN).withPeer(3).describe()).isEqualTo("join (peer 3)");
        assertThat(ErrorContext.of(Operation.JOIN).describe()).isEqualTo("join");
        assertThat(ErrorContext.of(Operation.JOIN).withPeer(3).peer()).isEqualTo(3);
    }

    @Test
    void shouldFormatTimeoutsWithUnits() {
        var e = new OperationTimeoutException(COLLECTIVE, Duration.ofSeconds(30), "rank 1");
        assertThat(e).hasMessage("allReduce on rank 2 (world 4, comm 0, seq 17, peer 1) timed out after 30s waiting for"
                + " rank 1");
        assertThat(e.code()).isEqualTo(ErrorCode.DEADLINE_EXCEEDED);
        assertThat(e.timeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(e.operation()).isEqualTo(Operation.ALL_REDUCE);
        assertThat(e.rank()).isEqualTo(2);
        assertThat(e.peer()).hasValue(1);
        assertThat(new OperationTimeoutException(COLLECTIVE, Duration.ofMillis(1500), "x"))
                .hasMessageEndingWith("timed out after 1500ms waiting for x");
    }

    @Test
    void shouldGiveEveryExceptionItsStableCode() {
        assertThat(new PeerFailedException(COLLECTIVE, "cannot complete: rank 1 left").code())
                .isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(new ProtocolException(COLLECTIVE, "x").code()).isEqualTo(ErrorCode.PROTOCOL);
        assertThat(new ClusterFormationException(COLLECTIVE, "x").code()).isEqualTo(ErrorCode.UNAVAILABLE);
        assertThat(new CommunicatorClosedException(COLLECTIVE, "x").code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
        assertThat(new InternalNexarException(COLLECTIVE, "x").code()).isEqualTo(ErrorCode.INTERNAL);
        assertThat(new OperationCancelledException(COLLECTIVE, "x").code()).isEqualTo(ErrorCode.CANCELLED);
        assertThat(new InvalidConfigurationException("NEXAR_P2P_TIMEOUT", "30x", "a duration such as 500ms or 30s"))
                .hasMessage("configure failed: NEXAR_P2P_TIMEOUT=\"30x\": expected a duration such as 500ms or 30s")
                .satisfies(e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
    }

    @Test
    void shouldReportBothSizesOnMismatch() {
        var e = new MessageSizeMismatchException(ErrorContext.p2p(Operation.RECV, 1, 2, 0, 4, 0), 100, 50);
        assertThat(e).hasMessage("recv on rank 1 (world 2, comm 0, tag 4, peer 0) received a message of 100 bytes from"
                + " rank 0 but the receive buffer holds only 50 bytes");
        assertThat(e.messageBytes()).isEqualTo(100);
        assertThat(e.bufferBytes()).isEqualTo(50);
    }

    @Test
    void shouldNameTheCalleeFunctionAndRemoteExceptionOfAFailedCall() {
        var context = new ErrorContext(Operation.RPC, 0, 4, 0, -1, -1, 2);
        var failed = new RpcException(context, RpcException.Reason.HANDLER_FAILED, ErrorCode.FAILED_PRECONDITION, 7,
                "java.lang.IllegalStateException", "no such key");
        assertThat(failed).hasMessage("rpc on rank 0 (world 4, comm 0, peer 2) failed on rank 2: function 7 threw"
                + " java.lang.IllegalStateException: no such key");
        assertThat(failed.code()).isEqualTo(ErrorCode.FAILED_PRECONDITION);
        assertThat(failed.functionId()).isEqualTo(7);
        assertThat(failed.peer()).hasValue(2);
        assertThat(new RpcException(context, RpcException.Reason.HANDLER_FAILED, ErrorCode.ABORTED, 7,
                "java.io.IOException", "")).hasMessageEndingWith("function 7 threw java.io.IOException");
        assertThat(new RpcException(context, RpcException.Reason.UNKNOWN_FUNCTION, ErrorCode.FAILED_PRECONDITION, 9,
                "", "function 9 is not registered on communicator 0 of rank 2"))
                .hasMessage("rpc on rank 0 (world 4, comm 0, peer 2) failed on rank 2: function 9 is not registered on"
                        + " communicator 0 of rank 2");
        assertThat(new RpcException(context, RpcException.Reason.OVERLOADED, ErrorCode.UNAVAILABLE, 9, "", "busy"))
                .hasMessage("rpc on rank 0 (world 4, comm 0, peer 2) was refused by rank 2: busy");
    }

    @Test
    void shouldKeepTheCause() {
        var cause = new IllegalStateException("root cause");
        assertThat(new PeerFailedException(COLLECTIVE, "x", cause)).hasCause(cause);
    }

    @Test
    void shouldRejectAContextWithoutOperation() {
        assertThatThrownBy(() -> new ErrorContext(null, 0, 1, 0, -1, -1, -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("operation must not be null");
    }

    /**
     * Issue 14 item 8: the class javadoc of every exception a user can catch (NexarException and every permitted
     * subclass) says when it is thrown (its first sentence) and what to do about it: a paragraph that starts
     * {@code <p>What to do} and says something. Reads the sources (the tests run in the module's directory), so that
     * a new subclass without that paragraph fails here.
     */
    @Test
    void shouldTellTheUserWhatToDoInEveryExceptionsJavadoc() throws Exception {
        var all = new java.util.ArrayList<Class<?>>(java.util.List.of(NexarException.class.getPermittedSubclasses()));
        assertThat(all).hasSizeGreaterThanOrEqualTo(11);
        all.add(NexarException.class);
        for (Class<?> c : all) {
            String source = Files.readString(Path.of("src/main/java/io/nexar/" + c.getSimpleName() + ".java"));
            int declaration = source.indexOf(" class " + c.getSimpleName() + " ");
            assertThat(declaration).as(c.getSimpleName() + " declaration").isPositive();
            int start = source.lastIndexOf("/**", declaration);
            int end = source.lastIndexOf("*/", declaration);
            assertThat(start).as(c.getSimpleName() + " has a class javadoc").isPositive().isLessThan(end);
            String javadoc = source.substring(start, end).replaceAll("\\s*\\n\\s*\\*\\s?", " ");
            assertThat(javadoc).as(c.getSimpleName()).containsPattern("^/\\*\\* \\S.{20,}") // when it is thrown
                    .containsPattern("<p>What to do\\b.{40,}");
        }
    }
}
