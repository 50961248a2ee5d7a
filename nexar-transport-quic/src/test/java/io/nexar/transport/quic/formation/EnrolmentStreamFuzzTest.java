package io.nexar.transport.quic.formation;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nexar.ProtocolException;
import io.nexar.internal.protocol.EnrolmentCodec;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.protocol.MessageCodec;
import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzz target (Jazzer) for the seed's and the worker's enrolment stream: {@link FrameIo#read} frame after frame
 * until the bytes end. Only {@link ProtocolException} (a bad frame) and {@link EOFException} (the end of the bytes)
 * may come out; every message read fits the enrolment limit. Seeds:
 * {@code src/test/resources/io/nexar/transport/quic/formation/EnrolmentStreamFuzzTestInputs/enrolmentStream/}.
 */
@Timeout(10)
class EnrolmentStreamFuzzTest {

    @FuzzTest
    void enrolmentStream(byte[] data) throws IOException {
        var in = new ByteArrayInputStream(data);
        try {
            while (true) {
                Message m = FrameIo.read(in, -1, EnrolmentCodec.MAX_ENROLMENT_FRAME_BYTES);
                assertThat(m).isNotNull();
                assertThat(MessageCodec.encodedSize(m))
                        .isLessThanOrEqualTo(4 + EnrolmentCodec.MAX_ENROLMENT_FRAME_BYTES);
            }
        } catch (ProtocolException e) {
            assertThat(e.getMessage()).isNotBlank();
        } catch (EOFException e) {
            assertThat(in.available()).isZero();
        }
    }
}
