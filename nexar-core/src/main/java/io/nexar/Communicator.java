package io.nexar;

import io.nexar.device.DeviceBuffer;
import java.lang.foreign.MemorySegment;

/**
 * A group of ranks that exchange messages. Rank numbers run from 0 to {@link #worldSize()} - 1.
 *
 * <h2>Point-to-point</h2>
 * {@code send(dest, tag, data)} delivers {@code data} to rank {@code dest}, where it is matched to a
 * {@code recv(src, tag, buffer)} by (communicator, source, tag). Between two ranks, messages with the same tag are
 * received in the order they were sent (MPI's non-overtaking rule), whatever their sizes. A message that arrives
 * before its receive is posted is kept in a bounded store (setting {@code unexpected.max.bytes}); when that store is
 * full, senders wait (back-pressure) instead of dropping anything. A rank may send to itself.
 *
 * <p>{@code send} returns once the data has been copied out of the caller's buffer (the buffer may be reused at
 * once); it does not wait for the matching {@code recv}. {@code recv} blocks until a whole message has arrived in
 * the caller's buffer. A message smaller than the buffer fills its prefix and {@code recv} returns its size; a
 * message larger than the buffer is consumed and reported as a {@link MessageSizeMismatchException} naming both
 * sizes. Sizes are 64-bit; payloads of any size are split into chunks (setting {@code chunk.size}) transparently.
 *
 * <p>Memory: heap segments and segments of global, automatic or shared arenas are filled in place by the transport
 * thread that delivers the message. A segment of a confined arena cannot be touched by another thread, so such a
 * receive lands in a temporary shared buffer and is copied on the calling thread (one extra copy).
 *
 * <h2>Threading</h2>
 * Every method blocks and is safe to call from virtual threads and from several threads at once. Concurrent sends
 * with the same (dest, tag) from different threads are delivered in some order, each message whole.
 *
 * <h2>Errors</h2>
 * Caller mistakes (a rank out of range, a negative tag) raise {@link IllegalArgumentException} before anything is
 * sent. Runtime failures raise a {@link NexarException}: {@link OperationTimeoutException} when setting
 * {@code p2p.timeout} passes, {@link PeerFailedException} when the peer leaves or fails,
 * {@link CommunicatorClosedException} after {@link #close()}.
 *
 * <h2>Typed arrays</h2>
 * Array overloads send the elements in little-endian byte order; a {@code float[]} sent is received as the same
 * floats by a {@code float[]} receive, and as its little-endian bytes by a {@code byte[]} or {@link MemorySegment}
 * receive. Array {@code recv} overloads return the number of elements received.
 */
public interface Communicator extends AutoCloseable {

    /** Largest user tag. Tags are in [0, MAX_TAG]. */
    int MAX_TAG = Integer.MAX_VALUE;

    /** This process's rank in this communicator. */
    int rank();

    /** The number of ranks in this communicator. */
    int worldSize();

    /** The communicator's id, unique in the cluster; the world communicator is 0. */
    int id();

    /**
     * Sends the bytes of {@code data} (its whole size) to {@code dest}.
     *
     * @throws IllegalArgumentException if dest is not in [0, worldSize) or tag is negative
     */
    void send(int dest, int tag, MemorySegment data);

    /** Sends {@code data} as little-endian floats. */
    void send(int dest, int tag, float[] data);

    /** Sends {@code data} as little-endian doubles. */
    void send(int dest, int tag, double[] data);

    /** Sends {@code data} as little-endian 32-bit integers. */
    void send(int dest, int tag, int[] data);

    /** Sends {@code data} as little-endian 64-bit integers. */
    void send(int dest, int tag, long[] data);

    /** Sends the bytes of {@code data}. */
    void send(int dest, int tag, byte[] data);

    /**
     * Sends the contents of device memory: the buffer's adapter stages it to host memory first.
     *
     * @see io.nexar.device.DeviceAdapter
     */
    void send(int dest, int tag, DeviceBuffer data);

    /**
     * Receives the next message from {@code src} with {@code tag} into {@code buffer}.
     *
     * @return the number of bytes received, at most {@code buffer.byteSize()}
     * @throws MessageSizeMismatchException if the message is larger than the buffer
     */
    long recv(int src, int tag, MemorySegment buffer);

    /** Receives floats; returns the number of elements received. */
    int recv(int src, int tag, float[] buffer);

    /** Receives doubles; returns the number of elements received. */
    int recv(int src, int tag, double[] buffer);

    /** Receives 32-bit integers; returns the number of elements received. */
    int recv(int src, int tag, int[] buffer);

    /** Receives 64-bit integers; returns the number of elements received. */
    int recv(int src, int tag, long[] buffer);

    /** Receives bytes; returns the number of bytes received. */
    int recv(int src, int tag, byte[] buffer);

    /**
     * Receives into device memory: the message lands in host memory and the buffer's adapter copies it to the
     * device.
     *
     * @return the number of bytes received
     */
    long recv(int src, int tag, DeviceBuffer buffer);

    /**
     * Closes this communicator: pending and later operations fail with {@link CommunicatorClosedException}, and peers
     * are told that this rank left. Idempotent; bounded by setting {@code close.timeout}.
     */
    @Override
    void close();
}
