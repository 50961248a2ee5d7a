package io.nexar;

import io.nexar.device.DeviceBuffer;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * The point-to-point operations of a {@link Communicator} on {@link MemorySegment}s, typed arrays and device
 * buffers, and MPI's full set: non-blocking operations, wildcards ({@link #ANY_SOURCE}, {@link #ANY_TAG}), probes,
 * status and sendRecv. The documentation of {@link Communicator} describes how messages are matched and ordered,
 * back-pressure, memory, threading and errors; {@link PointToPointViews} adds the {@link java.nio.ByteBuffer} and
 * array-slice forms. Programs use {@link Communicator}, which extends this interface.
 */
public interface PointToPointCommunicator extends RankGroup {
    /** Largest user tag. Tags are in [0, MAX_TAG]. */
    int MAX_TAG = Integer.MAX_VALUE;

    /**
     * Sends the bytes of {@code data} (its whole size) to {@code dest}.
     *
     * @param dest the rank to send to, in [0, worldSize)
     * @param tag the message tag, in [0, {@link #MAX_TAG}]; the receiver matches on it
     * @param data the bytes to send
     * @throws IllegalArgumentException if dest is not in [0, worldSize) or tag is negative
     */
    void send(int dest, int tag, MemorySegment data);

    /**
     * Sends {@code data} as little-endian floats.
     *
     * @param dest the rank to send to, in [0, worldSize)
     * @param tag the message tag, in [0, {@link #MAX_TAG}]; the receiver matches on it
     * @param data the floats to send
     */
    void send(int dest, int tag, float[] data);

    /**
     * Sends {@code data} as little-endian doubles.
     *
     * @param dest the rank to send to, in [0, worldSize)
     * @param tag the message tag, in [0, {@link #MAX_TAG}]; the receiver matches on it
     * @param data the doubles to send
     */
    void send(int dest, int tag, double[] data);

    /**
     * Sends {@code data} as little-endian 32-bit integers.
     *
     * @param dest the rank to send to, in [0, worldSize)
     * @param tag the message tag, in [0, {@link #MAX_TAG}]; the receiver matches on it
     * @param data the integers to send
     */
    void send(int dest, int tag, int[] data);

    /**
     * Sends {@code data} as little-endian 64-bit integers.
     *
     * @param dest the rank to send to, in [0, worldSize)
     * @param tag the message tag, in [0, {@link #MAX_TAG}]; the receiver matches on it
     * @param data the integers to send
     */
    void send(int dest, int tag, long[] data);

    /**
     * Sends the bytes of {@code data}.
     *
     * @param dest the rank to send to, in [0, worldSize)
     * @param tag the message tag, in [0, {@link #MAX_TAG}]; the receiver matches on it
     * @param data the bytes to send
     */
    void send(int dest, int tag, byte[] data);

    /**
     * Sends the contents of device memory: the buffer's adapter stages it to host memory first.
     *
     * @param dest the rank to send to, in [0, worldSize)
     * @param tag the message tag, in [0, {@link #MAX_TAG}]; the receiver matches on it
     * @param data the device memory to send (its whole size)
     * @see io.nexar.device.DeviceAdapter
     */
    void send(int dest, int tag, DeviceBuffer data);

    /**
     * Receives the next message from {@code src} with {@code tag} into {@code buffer}.
     *
     * @param src the rank to receive from, in [0, worldSize)
     * @param tag the message tag, in [0, {@link #MAX_TAG}]; the receiver matches on it
     * @param buffer where the message lands; its size is the largest message accepted
     * @return the number of bytes received, at most {@code buffer.byteSize()}
     * @throws MessageSizeMismatchException if the message is larger than the buffer
     */
    long recv(int src, int tag, MemorySegment buffer);

    /**
     * Receives floats; returns the number of elements received.
     *
     * @param src the rank to receive from, in [0, worldSize)
     * @param tag the message tag, in [0, {@link #MAX_TAG}]; the receiver matches on it
     * @param buffer where the elements land; its length is the largest message accepted
     * @return the number of elements received, at most {@code buffer.length}
     */
    int recv(int src, int tag, float[] buffer);

    /**
     * Receives doubles; returns the number of elements received.
     *
     * @param src the rank to receive from, in [0, worldSize)
     * @param tag the message tag, in [0, {@link #MAX_TAG}]; the receiver matches on it
     * @param buffer where the elements land; its length is the largest message accepted
     * @return the number of elements received, at most {@code buffer.length}
     */
    int recv(int src, int tag, double[] buffer);

    /**
     * Receives 32-bit integers; returns the number of elements received.
     *
     * @param src the rank to receive from, in [0, worldSize)
     * @param tag the message tag, in [0, {@link #MAX_TAG}]; the receiver matches on it
     * @param buffer where the elements land; its length is the largest message accepted
     * @return the number of elements received, at most {@code buffer.length}
     */
    int recv(int src, int tag, int[] buffer);

    /**
     * Receives 64-bit integers; returns the number of elements received.
     *
     * @param src the rank to receive from, in [0, worldSize)
     * @param tag the message tag, in [0, {@link #MAX_TAG}]; the receiver matches on it
     * @param buffer where the elements land; its length is the largest message accepted
     * @return the number of elements received, at most {@code buffer.length}
     */
    int recv(int src, int tag, long[] buffer);

    /**
     * Receives bytes; returns the number of bytes received.
     *
     * @param src the rank to receive from, in [0, worldSize)
     * @param tag the message tag, in [0, {@link #MAX_TAG}]; the receiver matches on it
     * @param buffer where the message lands; its length is the largest message accepted
     * @return the number of elements received, at most {@code buffer.length}
     */
    int recv(int src, int tag, byte[] buffer);

    /**
     * Receives into device memory: the message lands in host memory and the buffer's adapter copies it to the
     * device.
     *
     * @param src the rank to receive from, in [0, worldSize)
     * @param tag the message tag, in [0, {@link #MAX_TAG}]; the receiver matches on it
     * @param buffer where the message lands on the device; its size is the largest message accepted
     * @return the number of bytes received
     */
    long recv(int src, int tag, DeviceBuffer buffer);

    /** Wildcard source of a receive or probe: a message from any rank of this communicator (MPI_ANY_SOURCE). */
    int ANY_SOURCE = -2;

    /** Wildcard tag of a receive or probe: a message with any tag (MPI_ANY_TAG). */
    int ANY_TAG = -1;

    /**
     * Starts sending {@code data} to {@code dest} and returns at once (MPI_Isend). The message takes its place in the
     * send order now: a later send to the same rank on this communicator is matched after it. The data belongs to
     * the operation until it ends (do not write it before {@link PointToPointHandle#await()} returns).
     *
     * @param dest the destination rank
     * @param tag the tag, in [0, MAX_TAG]
     * @param data the bytes to send (its whole size); heap, global, auto or shared arena memory
     * @return the send's handle; its status is (dest, tag, size)
     * @throws IllegalArgumentException if dest is not in [0, worldSize), tag is negative, data is null or belongs to
     *         a confined arena
     * @throws CommunicatorClosedException if this communicator is closed
     */
    PointToPointHandle isend(int dest, int tag, MemorySegment data);

    /**
     * Posts a receive and returns at once (MPI_Irecv). It matches like {@link #recvStatus}, in the order receives
     * were posted; {@link PointToPointHandle#await()} returns the message's {@link Status}. The buffer belongs to the
     * operation until it ends.
     *
     * @param src the source rank or {@link #ANY_SOURCE}
     * @param tag the tag or {@link #ANY_TAG}
     * @param buffer where the message lands (at most its size); heap, global, auto or shared arena memory
     * @return the receive's handle
     * @throws IllegalArgumentException if src or tag is out of range, buffer is null, read-only or belongs to a
     *         confined arena
     * @throws CommunicatorClosedException if this communicator is closed
     */
    PointToPointHandle irecv(int src, int tag, MemorySegment buffer);

    /**
     * Receives the next matching message into {@code buffer} and says where it came from (MPI_Recv with a status).
     * A receive with {@link #ANY_SOURCE} or {@link #ANY_TAG} takes the earliest matchable message that matches: the
     * messages of one sender are matched in the order they were sent (whatever their tags), those of different
     * senders in the order they began to arrive. A message goes to the earliest posted receive that matches it.
     * A receive from {@link #ANY_SOURCE} is not failed by the loss of one rank (another, or this rank, may still
     * send); it ends by a match, setting {@code p2p.timeout}, the recovery policy or {@link Communicator#close()}.
     *
     * @param src the source rank or {@link #ANY_SOURCE}
     * @param tag the tag or {@link #ANY_TAG}
     * @param buffer where the message lands (at most its size)
     * @return the message's source (in this communicator's numbering), tag and size in bytes
     * @throws IllegalArgumentException if src or tag is out of range, buffer is null or read-only
     * @throws MessageSizeMismatchException if the message is larger than the buffer
     * @throws OperationTimeoutException if setting {@code p2p.timeout} passes first
     * @throws PeerFailedException if the (specific) source fails
     * @throws CommunicatorClosedException if this communicator is closed
     */
    Status recvStatus(int src, int tag, MemorySegment buffer);

    /**
     * Waits until a receive of ({@code src}, {@code tag}) could take a message, and describes it without receiving
     * it (MPI_Probe): a receive of the returned source and tag that follows takes that very message, unless another
     * thread receives it first. Use it to size the buffer of a message of unknown size.
     *
     * @param src the source rank or {@link #ANY_SOURCE}
     * @param tag the tag or {@link #ANY_TAG}
     * @return the message's source, tag and size in bytes
     * @throws IllegalArgumentException if src or tag is out of range
     * @throws OperationTimeoutException if setting {@code p2p.timeout} passes first
     * @throws PeerFailedException if the (specific) source fails
     * @throws CommunicatorClosedException if this communicator is closed
     */
    Status probe(int src, int tag);

    /**
     * {@link #probe} without waiting (MPI_Iprobe).
     *
     * @param src the source rank or {@link #ANY_SOURCE}
     * @param tag the tag or {@link #ANY_TAG}
     * @return the status of the message a receive would take now, or empty if none has arrived
     * @throws IllegalArgumentException if src or tag is out of range
     * @throws CommunicatorClosedException if this communicator is closed
     */
    Optional<Status> iprobe(int src, int tag);

    /**
     * Sends {@code data} to {@code dest} and receives a message from {@code src} into {@code buffer}, without
     * deadlock whatever the peers do at the same time (MPI_Sendrecv): the receive is posted before the send starts.
     * {@code dest} and {@code src} may be the same rank, or this rank.
     *
     * @param dest the destination rank
     * @param sendTag the tag of the message sent
     * @param data the bytes to send
     * @param src the source rank or {@link #ANY_SOURCE}
     * @param recvTag the tag to receive or {@link #ANY_TAG}
     * @param buffer where the received message lands
     * @return the received message's status
     * @throws IllegalArgumentException if a rank or tag is out of range, or a buffer is null or read-only
     * @throws NexarException as {@link #send} and {@link #recvStatus}
     */
    Status sendRecv(int dest, int sendTag, MemorySegment data, int src, int recvTag, MemorySegment buffer);
}
