package io.nexar.device;

/**
 * A region of memory owned by some device (a GPU, an accelerator, or the host). nexar never reads it directly: it
 * asks the buffer's {@link #adapter()} to stage it for the network and to copy received bytes into it.
 */
public interface DeviceBuffer {

    /** {@return the size of the region in bytes} */
    long byteSize();

    /** {@return the adapter that knows how to move bytes in and out of this buffer} */
    DeviceAdapter adapter();
}
