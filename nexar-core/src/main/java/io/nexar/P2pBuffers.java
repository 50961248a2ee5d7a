package io.nexar;

import io.nexar.internal.comm.WireArrays;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;

/**
 * The one path of the {@link ByteBuffer} and array-slice forms of {@link Communicator}'s point-to-point methods: each
 * becomes a {@link MemorySegment} view (no copy on little-endian machines) handed to the segment form; a receive's
 * follow-up (advancing a buffer's position, counting elements) runs once, when the receive is seen to end.
 */
final class P2pBuffers {
    private P2pBuffers() {
    }

    /** The bytes between {@code buffer}'s position and limit (heap or direct); the buffer itself is not changed. */
    static MemorySegment view(ByteBuffer buffer) {
        if (buffer == null) {
            throw new IllegalArgumentException("buffer must not be null");
        }
        return MemorySegment.ofBuffer(buffer);
    }

    /**
     * Elements [offset, offset + length) of the array behind {@code array} ({@code MemorySegment.ofArray}).
     *
     * @throws IllegalArgumentException if the range is not inside the array
     */
    static MemorySegment slice(MemorySegment array, ValueLayout element, int offset, int length) {
        long elements = array.byteSize() / element.byteSize();
        if (offset < 0 || length < 0 || offset > elements - length) {
            throw new IllegalArgumentException("offset " + offset + " and length " + length
                    + " are not inside an array of " + elements + " elements");
        }
        return array.asSlice(offset * element.byteSize(), length * element.byteSize());
    }

    /** Sends elements [offset, offset + length) of an array in little-endian order. */
    static void send(PointToPointCommunicator c, int dest, int tag, MemorySegment array, ValueLayout element,
                     int offset, int length) {
        c.send(dest, tag, wire(slice(array, element, offset, length), element));
    }

    /** Starts sending elements [offset, offset + length) of an array. */
    static PointToPointHandle isend(PointToPointCommunicator c, int dest, int tag, MemorySegment array,
                                    ValueLayout element, int offset, int length) {
        return c.isend(dest, tag, wire(slice(array, element, offset, length), element));
    }

    /** Receives into elements [offset, offset + length) of an array; returns the number of elements received. */
    static int recv(PointToPointCommunicator c, int src, int tag, MemorySegment array, ValueLayout element, int offset,
                    int length) {
        MemorySegment slice = slice(array, element, offset, length);
        MemorySegment target = target(slice, element);
        Status st = c.recvStatus(src, tag, target);
        return Math.toIntExact(elements(st, slice, target, element));
    }

    /** Starts a receive into elements [offset, offset + length) of an array. */
    static PointToPointHandle irecv(PointToPointCommunicator c, int src, int tag, MemorySegment array,
                                    ValueLayout element, int offset, int length) {
        MemorySegment slice = slice(array, element, offset, length);
        MemorySegment target = target(slice, element);
        return new Finishing(c.irecv(src, tag, target), st -> {
            elements(st, slice, target, element);
            return st;
        });
    }

    /** Receives into {@code buffer} from its position and advances the position by the bytes received. */
    static Status recvStatus(PointToPointCommunicator c, int src, int tag, ByteBuffer buffer) {
        MemorySegment view = view(buffer);
        return advance(buffer, buffer.position(), c.recvStatus(src, tag, view));
    }

    /** Starts a receive into {@code buffer}; its position advances once the receive is seen to end. */
    static PointToPointHandle irecv(PointToPointCommunicator c, int src, int tag, ByteBuffer buffer) {
        MemorySegment view = view(buffer);
        int start = buffer.position();
        return new Finishing(c.irecv(src, tag, view), st -> advance(buffer, start, st));
    }

    /** {@link Communicator#sendRecv} of byte buffers: the receive buffer's position advances. */
    static Status sendRecv(PointToPointCommunicator c, int dest, int sendTag, ByteBuffer data, int src, int recvTag,
                           ByteBuffer buffer) {
        MemorySegment out = view(data);
        MemorySegment in = view(buffer);
        return advance(buffer, buffer.position(), c.sendRecv(dest, sendTag, out, src, recvTag, in));
    }

    private static Status advance(ByteBuffer buffer, int start, Status st) {
        buffer.position(start + Math.toIntExact(st.byteSize()));
        return st;
    }

    private static MemorySegment wire(MemorySegment slice, ValueLayout element) {
        return swapped(element) ? WireArrays.wire(slice, element) : slice;
    }

    /** Where an array receive lands: the array itself, or a little-endian copy on a big-endian machine. */
    private static MemorySegment target(MemorySegment slice, ValueLayout element) {
        return swapped(element) ? MemorySegment.ofArray(new byte[Math.toIntExact(slice.byteSize())]) : slice;
    }

    private static boolean swapped(ValueLayout element) {
        return element.byteSize() > 1 && !WireArrays.LITTLE_ENDIAN;
    }

    /**
     * The number of elements an array receive got, after moving them from {@code target} into {@code slice} if they
     * differ.
     *
     * @throws IllegalArgumentException if the message is not a whole number of elements (for example bytes sent,
     *         floats received)
     */
    private static long elements(Status st, MemorySegment slice, MemorySegment target, ValueLayout element) {
        long size = element.byteSize();
        if (st.byteSize() % size != 0) {
            throw new IllegalArgumentException("recv: rank " + st.source() + " sent " + st.byteSize()
                    + " bytes with tag " + st.tag() + ", not a whole number of " + size + "-byte elements");
        }
        if (target != slice) {
            WireArrays.fromWire(target, slice, element, st.byteSize() / size);
        }
        return st.byteSize() / size;
    }

    /** A receive handle whose follow-up runs once, when the receive is first seen to have succeeded. */
    private static final class Finishing implements PointToPointHandle {
        private final PointToPointHandle inner;
        private final UnaryOperator<Status> finish;
        private Status finished;

        Finishing(PointToPointHandle inner, UnaryOperator<Status> finish) {
            this.inner = inner;
            this.finish = finish;
        }

        private synchronized Status finish(Status st) {
            if (finished == null) {
                finished = finish.apply(st);
            }
            return finished;
        }

        @Override
        public Status await() {
            return finish(inner.await());
        }

        @Override
        public Status await(Duration timeout) {
            return finish(inner.await(timeout));
        }

        @Override
        public boolean isDone() {
            boolean done = inner.isDone();
            if (done) {
                try {
                    finish(inner.await()); // returns at once
                } catch (RuntimeException failed) {
                    // the operation's failure: await() throws it
                }
            }
            return done;
        }

        @Override
        public boolean cancel() {
            return inner.cancel();
        }

        @Override
        public CompletableFuture<Status> toCompletableFuture() {
            var f = new CompletableFuture<Status>();
            inner.toCompletableFuture().whenComplete((st, e) -> {
                if (e != null) {
                    f.completeExceptionally(e);
                    return;
                }
                try {
                    f.complete(finish(st));
                } catch (RuntimeException x) {
                    f.completeExceptionally(x);
                }
            });
            return f;
        }
    }
}
