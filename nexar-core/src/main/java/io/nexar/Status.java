package io.nexar;

/**
 * What a point-to-point receive or probe found: who sent the message, with which tag, and how large it is (MPI's
 * {@code MPI_Status}). Returned by {@link Communicator#recvStatus}, {@link Communicator#probe},
 * {@link Communicator#iprobe}, {@link Communicator#sendRecv} and by {@link PointToPointHandle#await()} of an
 * {@code irecv}; the way to learn the actual source and tag of a receive posted with {@link Communicator#ANY_SOURCE}
 * or {@link Communicator#ANY_TAG}.
 *
 * @param source the sender, in the receiving communicator's numbering (for a send handle: its destination)
 * @param tag the message's tag
 * @param byteSize the message's size in bytes (for a receive: the bytes written into the buffer)
 */
public record Status(int source, int tag, long byteSize) {

    /**
     * The number of whole elements of {@code type} in the message ({@code MPI_Get_count}).
     *
     * @param type the element type the receiver reads
     * @return {@code byteSize / type.byteSize()}
     * @throws IllegalArgumentException if the size is not a whole number of elements
     */
    public long count(DataType type) {
        if (byteSize % type.byteSize() != 0) {
            throw new IllegalArgumentException("a message of " + byteSize + " bytes from rank " + source + " (tag "
                    + tag + ") is not a whole number of " + type + " elements of " + type.byteSize() + " bytes");
        }
        return byteSize / type.byteSize();
    }
}
