package io.nexar.transport.quic;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nexar.ProtocolException;
import io.nexar.internal.protocol.EnrolmentCodec;
import io.nexar.internal.protocol.WireFormat;
import io.nexar.internal.transport.Newcomer;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzz target (Jazzer) for the descriptor of a newcomer that running members broadcast ({@link PeerDescriptor}).
 * It documents {@link ProtocolException} for bad bytes and {@link IllegalArgumentException} for a descriptor of
 * another rank; nothing else may come out. Seeds:
 * {@code src/test/resources/io/nexar/transport/quic/PeerDescriptorFuzzTestInputs/peerDescriptor/}.
 */
@Timeout(10)
class PeerDescriptorFuzzTest {

    @FuzzTest
    void peerDescriptor(byte[] data) {
        // The newcomer's rank is the first entry's when there is one, so that the fuzzer reaches the success path.
        int rank = data.length >= EnrolmentCodec.TABLE_ENTRIES_OFFSET + 4
                ? Math.max(0, MemorySegment.ofArray(data).get(WireFormat.INT_LE, EnrolmentCodec.TABLE_ENTRIES_OFFSET))
                : 0;
        try {
            PeerInfo p = PeerDescriptor.decode(new Newcomer(rank, data));
            assertThat(p.rank()).isEqualTo(rank);
        } catch (ProtocolException | IllegalArgumentException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
    }
}
