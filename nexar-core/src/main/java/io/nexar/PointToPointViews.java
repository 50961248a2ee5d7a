package io.nexar;

import io.nexar.internal.util.Checks;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * The {@link ByteBuffer} and array-slice forms of the point-to-point operations of a {@link Communicator}. They are
 * views handed to the {@link MemorySegment} forms of {@link PointToPointCommunicator} (no copy): a ByteBuffer (heap
 * or direct) sends or receives the bytes between its position and limit; a receive advances its position by the
 * bytes received, a send leaves it unchanged. Slices are elements [offset, offset + length) of an array. Programs use
 * {@link Communicator}, which extends this interface.
 */
public interface PointToPointViews extends PointToPointCommunicator {
    /**
     * Sends the bytes between {@code data}'s position and limit (heap or direct); the buffer is not changed.
     *
     * @param dest the destination rank
     * @param tag the tag
     * @param data the bytes to send
     * @throws IllegalArgumentException as {@link #send(int, int, MemorySegment)}
     */
    default void send(int dest, int tag, ByteBuffer data) {
        send(dest, tag, P2pBuffers.view(data));
    }

    /**
     * Receives into {@code buffer} from its position (at most up to its limit) and advances the position by the
     * bytes received.
     *
     * @param src the source rank or {@link #ANY_SOURCE}
     * @param tag the tag or {@link #ANY_TAG}
     * @param buffer where the message lands
     * @return the number of bytes received
     * @throws NexarException as {@link #recvStatus}
     */
    default int recv(int src, int tag, ByteBuffer buffer) {
        return Math.toIntExact(P2pBuffers.recvStatus(this, src, tag, buffer).byteSize());
    }

    /**
     * {@link #recvStatus(int, int, MemorySegment)} into a byte buffer, advancing its position.
     *
     * @param src the source rank or {@link #ANY_SOURCE}
     * @param tag the tag or {@link #ANY_TAG}
     * @param buffer where the message lands, from its position
     * @return the message's status
     * @throws NexarException as {@link #recvStatus(int, int, MemorySegment)}
     */
    default Status recvStatus(int src, int tag, ByteBuffer buffer) {
        return P2pBuffers.recvStatus(this, src, tag, buffer);
    }

    /**
     * {@link #isend(int, int, MemorySegment)} of the bytes between {@code data}'s position and limit.
     *
     * @param dest the destination rank
     * @param tag the tag
     * @param data the bytes to send (not changed; do not write them before the send ends)
     * @return the send's handle
     */
    default PointToPointHandle isend(int dest, int tag, ByteBuffer data) {
        return isend(dest, tag, P2pBuffers.view(data));
    }

    /**
     * {@link #irecv(int, int, MemorySegment)} into a byte buffer from its position; the position advances by the bytes
     * received when the receive is seen to end (await, or isDone returning true, or the future completing).
     *
     * @param src the source rank or {@link #ANY_SOURCE}
     * @param tag the tag or {@link #ANY_TAG}
     * @param buffer where the message lands
     * @return the receive's handle
     */
    default PointToPointHandle irecv(int src, int tag, ByteBuffer buffer) {
        return P2pBuffers.irecv(this, src, tag, buffer);
    }

    /**
     * {@link #sendRecv(int, int, MemorySegment, int, int, MemorySegment)} of byte buffers: sends {@code data}'s
     * remaining bytes (unchanged) and receives into {@code buffer}, advancing its position.
     *
     * @param dest the destination rank
     * @param sendTag the tag of the message sent
     * @param data the bytes to send
     * @param src the source rank or {@link #ANY_SOURCE}
     * @param recvTag the tag to receive or {@link #ANY_TAG}
     * @param buffer where the received message lands
     * @return the received message's status
     */
    default Status sendRecv(int dest, int sendTag, ByteBuffer data, int src, int recvTag,
                            ByteBuffer buffer) {
        return P2pBuffers.sendRecv(this, dest, sendTag, data, src, recvTag, buffer);
    }

    /**
     * Sends elements [offset, offset + length) of {@code data} as little-endian bytes.
     *
     * @param dest the destination rank
     * @param tag the tag
     * @param data the array
     * @param offset the first element sent
     * @param length the number of elements sent
     * @throws IllegalArgumentException if the range is not inside the array, or as
     *         {@link #send(int, int, MemorySegment)}
     */
    default void send(int dest, int tag, byte[] data, int offset, int length) {
        P2pBuffers.send(this, dest, tag, MemorySegment.ofArray(Checks.notNull("data", data)),
                ValueLayout.JAVA_BYTE, offset, length);
    }

    /**
     * Receives bytes into elements [offset, offset + length) of {@code buffer}.
     *
     * @param src the source rank or {@link #ANY_SOURCE}
     * @param tag the tag or {@link #ANY_TAG}
     * @param buffer the array
     * @param offset the first element written
     * @param length the most elements received
     * @return the number of elements received
     * @throws IllegalArgumentException if the range is not inside the array, or the message is not a whole number of
     *         elements
     * @throws NexarException as {@link #recvStatus(int, int, MemorySegment)}
     */
    default int recv(int src, int tag, byte[] buffer, int offset, int length) {
        return P2pBuffers.recv(this, src, tag, MemorySegment.ofArray(Checks.notNull("buffer", buffer)),
                ValueLayout.JAVA_BYTE, offset, length);
    }

    /**
     * Starts sending elements [offset, offset + length) of {@code data} as little-endian bytes.
     *
     * @param dest the destination rank
     * @param tag the tag
     * @param data the array (do not write the range before the send ends)
     * @param offset the first element sent
     * @param length the number of elements sent
     * @return the send's handle
     * @throws IllegalArgumentException if the range is not inside the array, or as
     *         {@link #isend(int, int, MemorySegment)}
     */
    default PointToPointHandle isend(int dest, int tag, byte[] data, int offset, int length) {
        return P2pBuffers.isend(this, dest, tag, MemorySegment.ofArray(Checks.notNull("data", data)),
                ValueLayout.JAVA_BYTE, offset, length);
    }

    /**
     * Starts receiving bytes into elements [offset, offset + length) of {@code buffer};
     * the status's size is in bytes.
     *
     * @param src the source rank or {@link #ANY_SOURCE}
     * @param tag the tag or {@link #ANY_TAG}
     * @param buffer the array (do not read the range before the receive ends)
     * @param offset the first element written
     * @param length the most elements received
     * @return the receive's handle
     * @throws IllegalArgumentException if the range is not inside the array, or as
     *         {@link #irecv(int, int, MemorySegment)}
     */
    default PointToPointHandle irecv(int src, int tag, byte[] buffer, int offset, int length) {
        return P2pBuffers.irecv(this, src, tag, MemorySegment.ofArray(Checks.notNull("buffer", buffer)),
                ValueLayout.JAVA_BYTE, offset, length);
    }

    /**
     * Sends elements [offset, offset + length) of {@code data} as little-endian floats.
     *
     * @param dest the destination rank
     * @param tag the tag
     * @param data the array
     * @param offset the first element sent
     * @param length the number of elements sent
     * @throws IllegalArgumentException if the range is not inside the array, or as
     *         {@link #send(int, int, MemorySegment)}
     */
    default void send(int dest, int tag, float[] data, int offset, int length) {
        P2pBuffers.send(this, dest, tag, MemorySegment.ofArray(Checks.notNull("data", data)),
                ValueLayout.JAVA_FLOAT, offset, length);
    }

    /**
     * Receives floats into elements [offset, offset + length) of {@code buffer}.
     *
     * @param src the source rank or {@link #ANY_SOURCE}
     * @param tag the tag or {@link #ANY_TAG}
     * @param buffer the array
     * @param offset the first element written
     * @param length the most elements received
     * @return the number of elements received
     * @throws IllegalArgumentException if the range is not inside the array, or the message is not a whole number of
     *         elements
     * @throws NexarException as {@link #recvStatus(int, int, MemorySegment)}
     */
    default int recv(int src, int tag, float[] buffer, int offset, int length) {
        return P2pBuffers.recv(this, src, tag, MemorySegment.ofArray(Checks.notNull("buffer", buffer)),
                ValueLayout.JAVA_FLOAT, offset, length);
    }

    /**
     * Starts sending elements [offset, offset + length) of {@code data} as little-endian floats.
     *
     * @param dest the destination rank
     * @param tag the tag
     * @param data the array (do not write the range before the send ends)
     * @param offset the first element sent
     * @param length the number of elements sent
     * @return the send's handle
     * @throws IllegalArgumentException if the range is not inside the array, or as
     *         {@link #isend(int, int, MemorySegment)}
     */
    default PointToPointHandle isend(int dest, int tag, float[] data, int offset, int length) {
        return P2pBuffers.isend(this, dest, tag, MemorySegment.ofArray(Checks.notNull("data", data)),
                ValueLayout.JAVA_FLOAT, offset, length);
    }

    /**
     * Starts receiving floats into elements [offset, offset + length) of {@code buffer};
     * the status's size is in bytes.
     *
     * @param src the source rank or {@link #ANY_SOURCE}
     * @param tag the tag or {@link #ANY_TAG}
     * @param buffer the array (do not read the range before the receive ends)
     * @param offset the first element written
     * @param length the most elements received
     * @return the receive's handle
     * @throws IllegalArgumentException if the range is not inside the array, or as
     *         {@link #irecv(int, int, MemorySegment)}
     */
    default PointToPointHandle irecv(int src, int tag, float[] buffer, int offset, int length) {
        return P2pBuffers.irecv(this, src, tag, MemorySegment.ofArray(Checks.notNull("buffer", buffer)),
                ValueLayout.JAVA_FLOAT, offset, length);
    }

    /**
     * Sends elements [offset, offset + length) of {@code data} as little-endian doubles.
     *
     * @param dest the destination rank
     * @param tag the tag
     * @param data the array
     * @param offset the first element sent
     * @param length the number of elements sent
     * @throws IllegalArgumentException if the range is not inside the array, or as
     *         {@link #send(int, int, MemorySegment)}
     */
    default void send(int dest, int tag, double[] data, int offset, int length) {
        P2pBuffers.send(this, dest, tag, MemorySegment.ofArray(Checks.notNull("data", data)),
                ValueLayout.JAVA_DOUBLE, offset, length);
    }

    /**
     * Receives doubles into elements [offset, offset + length) of {@code buffer}.
     *
     * @param src the source rank or {@link #ANY_SOURCE}
     * @param tag the tag or {@link #ANY_TAG}
     * @param buffer the array
     * @param offset the first element written
     * @param length the most elements received
     * @return the number of elements received
     * @throws IllegalArgumentException if the range is not inside the array, or the message is not a whole number of
     *         elements
     * @throws NexarException as {@link #recvStatus(int, int, MemorySegment)}
     */
    default int recv(int src, int tag, double[] buffer, int offset, int length) {
        return P2pBuffers.recv(this, src, tag, MemorySegment.ofArray(Checks.notNull("buffer", buffer)),
                ValueLayout.JAVA_DOUBLE, offset, length);
    }

    /**
     * Starts sending elements [offset, offset + length) of {@code data} as little-endian doubles.
     *
     * @param dest the destination rank
     * @param tag the tag
     * @param data the array (do not write the range before the send ends)
     * @param offset the first element sent
     * @param length the number of elements sent
     * @return the send's handle
     * @throws IllegalArgumentException if the range is not inside the array, or as
     *         {@link #isend(int, int, MemorySegment)}
     */
    default PointToPointHandle isend(int dest, int tag, double[] data, int offset, int length) {
        return P2pBuffers.isend(this, dest, tag, MemorySegment.ofArray(Checks.notNull("data", data)),
                ValueLayout.JAVA_DOUBLE, offset, length);
    }

    /**
     * Starts receiving doubles into elements [offset, offset + length) of {@code buffer};
     * the status's size is in bytes.
     *
     * @param src the source rank or {@link #ANY_SOURCE}
     * @param tag the tag or {@link #ANY_TAG}
     * @param buffer the array (do not read the range before the receive ends)
     * @param offset the first element written
     * @param length the most elements received
     * @return the receive's handle
     * @throws IllegalArgumentException if the range is not inside the array, or as
     *         {@link #irecv(int, int, MemorySegment)}
     */
    default PointToPointHandle irecv(int src, int tag, double[] buffer, int offset, int length) {
        return P2pBuffers.irecv(this, src, tag, MemorySegment.ofArray(Checks.notNull("buffer", buffer)),
                ValueLayout.JAVA_DOUBLE, offset, length);
    }

    /**
     * Sends elements [offset, offset + length) of {@code data} as little-endian 32-bit integers.
     *
     * @param dest the destination rank
     * @param tag the tag
     * @param data the array
     * @param offset the first element sent
     * @param length the number of elements sent
     * @throws IllegalArgumentException if the range is not inside the array, or as
     *         {@link #send(int, int, MemorySegment)}
     */
    default void send(int dest, int tag, int[] data, int offset, int length) {
        P2pBuffers.send(this, dest, tag, MemorySegment.ofArray(Checks.notNull("data", data)),
                ValueLayout.JAVA_INT, offset, length);
    }

    /**
     * Receives 32-bit integers into elements [offset, offset + length) of {@code buffer}.
     *
     * @param src the source rank or {@link #ANY_SOURCE}
     * @param tag the tag or {@link #ANY_TAG}
     * @param buffer the array
     * @param offset the first element written
     * @param length the most elements received
     * @return the number of elements received
     * @throws IllegalArgumentException if the range is not inside the array, or the message is not a whole number of
     *         elements
     * @throws NexarException as {@link #recvStatus(int, int, MemorySegment)}
     */
    default int recv(int src, int tag, int[] buffer, int offset, int length) {
        return P2pBuffers.recv(this, src, tag, MemorySegment.ofArray(Checks.notNull("buffer", buffer)),
                ValueLayout.JAVA_INT, offset, length);
    }

    /**
     * Starts sending elements [offset, offset + length) of {@code data} as little-endian 32-bit integers.
     *
     * @param dest the destination rank
     * @param tag the tag
     * @param data the array (do not write the range before the send ends)
     * @param offset the first element sent
     * @param length the number of elements sent
     * @return the send's handle
     * @throws IllegalArgumentException if the range is not inside the array, or as
     *         {@link #isend(int, int, MemorySegment)}
     */
    default PointToPointHandle isend(int dest, int tag, int[] data, int offset, int length) {
        return P2pBuffers.isend(this, dest, tag, MemorySegment.ofArray(Checks.notNull("data", data)),
                ValueLayout.JAVA_INT, offset, length);
    }

    /**
     * Starts receiving 32-bit integers into elements [offset, offset + length) of {@code buffer};
     * the status's size is in bytes.
     *
     * @param src the source rank or {@link #ANY_SOURCE}
     * @param tag the tag or {@link #ANY_TAG}
     * @param buffer the array (do not read the range before the receive ends)
     * @param offset the first element written
     * @param length the most elements received
     * @return the receive's handle
     * @throws IllegalArgumentException if the range is not inside the array, or as
     *         {@link #irecv(int, int, MemorySegment)}
     */
    default PointToPointHandle irecv(int src, int tag, int[] buffer, int offset, int length) {
        return P2pBuffers.irecv(this, src, tag, MemorySegment.ofArray(Checks.notNull("buffer", buffer)),
                ValueLayout.JAVA_INT, offset, length);
    }

    /**
     * Sends elements [offset, offset + length) of {@code data} as little-endian 64-bit integers.
     *
     * @param dest the destination rank
     * @param tag the tag
     * @param data the array
     * @param offset the first element sent
     * @param length the number of elements sent
     * @throws IllegalArgumentException if the range is not inside the array, or as
     *         {@link #send(int, int, MemorySegment)}
     */
    default void send(int dest, int tag, long[] data, int offset, int length) {
        P2pBuffers.send(this, dest, tag, MemorySegment.ofArray(Checks.notNull("data", data)),
                ValueLayout.JAVA_LONG, offset, length);
    }

    /**
     * Receives 64-bit integers into elements [offset, offset + length) of {@code buffer}.
     *
     * @param src the source rank or {@link #ANY_SOURCE}
     * @param tag the tag or {@link #ANY_TAG}
     * @param buffer the array
     * @param offset the first element written
     * @param length the most elements received
     * @return the number of elements received
     * @throws IllegalArgumentException if the range is not inside the array, or the message is not a whole number of
     *         elements
     * @throws NexarException as {@link #recvStatus(int, int, MemorySegment)}
     */
    default int recv(int src, int tag, long[] buffer, int offset, int length) {
        return P2pBuffers.recv(this, src, tag, MemorySegment.ofArray(Checks.notNull("buffer", buffer)),
                ValueLayout.JAVA_LONG, offset, length);
    }

    /**
     * Starts sending elements [offset, offset + length) of {@code data} as little-endian 64-bit integers.
     *
     * @param dest the destination rank
     * @param tag the tag
     * @param data the array (do not write the range before the send ends)
     * @param offset the first element sent
     * @param length the number of elements sent
     * @return the send's handle
     * @throws IllegalArgumentException if the range is not inside the array, or as
     *         {@link #isend(int, int, MemorySegment)}
     */
    default PointToPointHandle isend(int dest, int tag, long[] data, int offset, int length) {
        return P2pBuffers.isend(this, dest, tag, MemorySegment.ofArray(Checks.notNull("data", data)),
                ValueLayout.JAVA_LONG, offset, length);
    }

    /**
     * Starts receiving 64-bit integers into elements [offset, offset + length) of {@code buffer};
     * the status's size is in bytes.
     *
     * @param src the source rank or {@link #ANY_SOURCE}
     * @param tag the tag or {@link #ANY_TAG}
     * @param buffer the array (do not read the range before the receive ends)
     * @param offset the first element written
     * @param length the most elements received
     * @return the receive's handle
     * @throws IllegalArgumentException if the range is not inside the array, or as
     *         {@link #irecv(int, int, MemorySegment)}
     */
    default PointToPointHandle irecv(int src, int tag, long[] buffer, int offset, int length) {
        return P2pBuffers.irecv(this, src, tag, MemorySegment.ofArray(Checks.notNull("buffer", buffer)),
                ValueLayout.JAVA_LONG, offset, length);
    }
}
