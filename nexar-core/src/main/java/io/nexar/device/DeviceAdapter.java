package io.nexar.device;

import io.nexar.internal.util.Segments;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Moves bytes between a device's memory and host memory for network I/O, so device backends (CUDA, ROCm, ...) can
 * plug in without the core knowing them. nexar only ever sends and receives host {@link MemorySegment}s; an adapter
 * stages device memory to the host before a send and copies received bytes to the device after a receive.
 *
 * <p>Implementations must be thread-safe: several operations may stage buffers at once. Errors should be thrown as
 * unchecked exceptions; nexar passes them to the caller unchanged.
 */
public interface DeviceAdapter {

    /**
     * A short name for messages and {@code nexar info}, for example {@code host} or {@code cuda:0}.
     *
     * @return a short name, for example {@code host} or {@code cuda:0}
     */
    String name();

    /**
     * Returns host memory holding the bytes of {@code source}. For host memory this may be the memory itself (no
     * copy); otherwise a host copy. The returned segment must stay valid and unchanged until the send returns.
     *
     * @param source device memory to send
     * @return host memory of exactly {@code source.byteSize()} bytes
     */
    MemorySegment stageForSend(DeviceBuffer source);

    /**
     * Copies {@code received} (host memory) into the start of {@code target}.
     *
     * @param received bytes that arrived; at most {@code target.byteSize()} bytes
     * @param target device memory to fill
     * @throws IllegalArgumentException if received is larger than target
     */
    void receiveToDevice(MemorySegment received, DeviceBuffer target);

    /**
     * Host memory that a receive for {@code target} may land in before {@link #receiveToDevice} is called. The host
     * adapter returns the target's own memory so nothing is copied; a device adapter returns a staging buffer of
     * {@code target.byteSize()} bytes.
     *
     * @param target the device memory the receive is for
     * @return host memory of {@code target.byteSize()} bytes
     */
    MemorySegment receiveStaging(DeviceBuffer target);

    /**
     * Stages several regions into one contiguous host buffer, in order. The default concatenates
     * {@link #stageForSend} results.
     *
     * @param sources the device memory to send, in order
     * @return host memory holding the bytes of every source, concatenated
     */
    default MemorySegment stageForSend(List<? extends DeviceBuffer> sources) {
        long total = 0;
        for (DeviceBuffer b : sources) {
            total = Math.addExact(total, b.byteSize());
        }
        MemorySegment out = MemorySegment.ofArray(new byte[Math.toIntExact(total)]);
        long offset = 0;
        for (DeviceBuffer b : sources) {
            MemorySegment staged = stageForSend(b);
            Segments.copy(staged, 0, out, offset, b.byteSize());
            offset += b.byteSize();
        }
        return out;
    }

    /**
     * Splits {@code received} over several regions, in order. The default calls {@link #receiveToDevice} per region.
     *
     * @param received the bytes that arrived, exactly the sum of the targets' sizes
     * @param targets the device memory to fill, in order
     * @throws IllegalArgumentException if the sizes do not add up
     */
    default void receiveToDevice(MemorySegment received, List<? extends DeviceBuffer> targets) {
        long total = 0;
        for (DeviceBuffer b : targets) {
            total = Math.addExact(total, b.byteSize());
        }
        if (total != received.byteSize()) {
            throw new IllegalArgumentException("received " + received.byteSize() + " bytes but the " + targets.size()
                    + " target regions hold " + total + " bytes");
        }
        long offset = 0;
        for (DeviceBuffer b : targets) {
            receiveToDevice(received.asSlice(offset, b.byteSize()), b);
            offset += b.byteSize();
        }
    }
}
