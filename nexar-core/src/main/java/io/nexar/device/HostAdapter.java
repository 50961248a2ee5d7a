package io.nexar.device;

import io.nexar.internal.util.Segments;
import java.lang.foreign.MemorySegment;

/**
 * The adapter for host memory: staging is free (the memory is sent as it is) and receives land directly in the
 * target. Use {@link #wrap(MemorySegment)} to view a host segment as a {@link DeviceBuffer}.
 */
public final class HostAdapter implements DeviceAdapter {

    /** The single instance. */
    public static final HostAdapter INSTANCE = new HostAdapter();

    private HostAdapter() {
    }

    /**
     * Views host memory as a device buffer of this adapter.
     *
     * @param memory host memory
     * @return a device buffer of this adapter over {@code memory} (no copy)
     */
    public static DeviceBuffer wrap(MemorySegment memory) {
        return new HostBuffer(memory);
    }

    @Override
    public String name() {
        return "host";
    }

    @Override
    public MemorySegment stageForSend(DeviceBuffer source) {
        return host(source).memory();
    }

    @Override
    public void receiveToDevice(MemorySegment received, DeviceBuffer target) {
        MemorySegment memory = host(target).memory();
        if (received.byteSize() > memory.byteSize()) {
            throw new IllegalArgumentException("received " + received.byteSize() + " bytes but the target holds "
                    + memory.byteSize() + " bytes");
        }
        if (!isSameRegion(received, memory)) {
            Segments.copy(received, 0, memory, 0, received.byteSize());
        }
    }

    @Override
    public MemorySegment receiveStaging(DeviceBuffer target) {
        return host(target).memory();
    }

    private static boolean isSameRegion(MemorySegment a, MemorySegment b) {
        return a.isNative() && b.isNative() && a.address() == b.address()
                || a.heapBase().isPresent() && a.heapBase().equals(b.heapBase()) && a.address() == b.address();
    }

    private static HostBuffer host(DeviceBuffer buffer) {
        if (buffer instanceof HostBuffer h) {
            return h;
        }
        throw new IllegalArgumentException("buffer of adapter " + buffer.adapter().name()
                + " given to the host adapter");
    }

    /** Host memory seen as a device buffer. */
    private record HostBuffer(MemorySegment memory) implements DeviceBuffer {
        @Override
        public long byteSize() {
            return memory.byteSize();
        }

        @Override
        public DeviceAdapter adapter() {
            return INSTANCE;
        }
    }
}
