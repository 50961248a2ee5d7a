package io.nexar.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.ErrorContext;
import io.nexar.Operation;
import io.nexar.OperationTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What blocked sends and probes say in a STATUS answer, and how their timeout carries the hang report. */
@Timeout(10)
class BlockedCallsTest {
    private static final long FAR = System.nanoTime() + Duration.ofMinutes(1).toNanos();

    @Test
    void shouldDescribeEachCallInProgressAndTheWorldRanksItAwaits() {
        var calls = new BlockedCalls(null, 0); // reports off: no watchdog, calls are still described
        BlockedCalls.Call send = calls.begin("send to", 1, 3, 5, 2, 4096, FAR);
        send.progress(1024);
        BlockedCalls.Call probe = calls.begin("probe from", -1, -1, -1, 0, -1, FAR);
        var lines = new ArrayList<String>();
        var waiting = new TreeSet<Integer>();
        calls.describe(lines, waiting);
        assertThat(lines).hasSize(2).anySatisfy(l -> assertThat(l).matches(
                "send to rank 1 \\(world rank 3\\) tag 5 on communicator 2 \\(sent 1024 of 4096 bytes\\) for [0-9.]+ s"))
                .anySatisfy(l -> assertThat(l).matches("probe from any rank tag any on communicator 0 for [0-9.]+ s"));
        assertThat(waiting).containsExactly(3);
        calls.end(send);
        calls.end(probe);
        lines.clear();
        calls.describe(lines, waiting);
        assertThat(lines).isEmpty();
    }

    @Test
    void shouldAppendTheReportToTheTimeoutKeepingItsContextAndTimeout() {
        var context = ErrorContext.p2p(Operation.SEND, 0, 4, 0, 5, 1);
        var timeout = new OperationTimeoutException(context, Duration.ofSeconds(6), "rank 1 to receive");
        assertThat(BlockedCalls.withReport(timeout, null)).isSameAs(timeout);
        OperationTimeoutException carried = BlockedCalls.withReport(timeout, "nexar hang report: world rank 0 ...");
        assertThat(carried.context()).isEqualTo(context);
        assertThat(carried.timeout()).isEqualTo(Duration.ofSeconds(6));
        assertThat(carried.getMessage()).isEqualTo(timeout.getMessage() + "; nexar hang report: world rank 0 ...");
    }
}
