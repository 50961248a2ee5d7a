package io.nexar.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.NexarConfig;
import io.nexar.device.DeviceAdapter;
import io.nexar.device.DeviceBuffer;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A device adapter whose memory the core cannot read directly: every send stages, every receive copies back. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DeviceAdapterTest {

    /** "Device" memory lives in a private array; only the adapter touches it. */
    static final class FakeDevice implements DeviceAdapter {
        final AtomicInteger staged = new AtomicInteger();
        final AtomicInteger copiedBack = new AtomicInteger();

        final class Buffer implements DeviceBuffer {
            final byte[] memory;

            Buffer(int size) {
                memory = new byte[size];
            }

            @Override
            public long byteSize() {
                return memory.length;
            }

            @Override
            public DeviceAdapter adapter() {
                return FakeDevice.this;
            }
        }

        @Override
        public String name() {
            return "fake:0";
        }

        @Override
        public MemorySegment stageForSend(DeviceBuffer source) {
            staged.incrementAndGet();
            return MemorySegment.ofArray(((Buffer) source).memory.clone());
        }

        @Override
        public void receiveToDevice(MemorySegment received, DeviceBuffer target) {
            copiedBack.incrementAndGet();
            MemorySegment.copy(received, 0, MemorySegment.ofArray(((Buffer) target).memory), 0, received.byteSize());
        }

        @Override
        public MemorySegment receiveStaging(DeviceBuffer target) {
            return MemorySegment.ofArray(new byte[(int) target.byteSize()]);
        }
    }

    @Test
    void shouldStageDeviceMemoryOnSendAndCopyItBackOnReceive() {
        var device = new FakeDevice();
        try (var cluster = LocalCluster.start(2, NexarConfig.builder().ignoreEnvironment().build())) {
            cluster.run(c -> {
                var buf = device.new Buffer(16);
                if (c.rank() == 0) {
                    buf.memory[15] = 42;
                    c.send(1, 0, buf);
                } else {
                    assertThat(c.recv(0, 0, buf)).isEqualTo(16);
                    assertThat(buf.memory[15]).isEqualTo((byte) 42);
                }
                return null;
            });
        }
        assertThat(device.staged.get()).isEqualTo(1);
        assertThat(device.copiedBack.get()).isEqualTo(1);
    }

    @Test
    void shouldGatherAndScatterSeveralRegionsInOrder() {
        var device = new FakeDevice();
        var a = device.new Buffer(2);
        var b = device.new Buffer(3);
        a.memory[0] = 1;
        b.memory[2] = 5;
        MemorySegment joined = device.stageForSend(List.of(a, b));
        assertThat(joined.byteSize()).isEqualTo(5);
        var x = device.new Buffer(2);
        var y = device.new Buffer(3);
        device.receiveToDevice(joined, List.of(x, y));
        assertThat(x.memory).containsExactly(1, 0);
        assertThat(y.memory).containsExactly(0, 0, 5);
        assertThatThrownBy(() -> device.receiveToDevice(joined, List.of(x)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("received 5 bytes but the 1 target regions hold 2 bytes");
    }
}
