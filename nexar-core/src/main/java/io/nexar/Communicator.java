package io.nexar;

import io.nexar.device.DeviceBuffer;
import io.nexar.rpc.Rpc;
import io.nexar.internal.util.Checks;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Optional;

/**
 * A group of ranks that exchange messages. Rank numbers run from 0 to {@link #worldSize()} - 1.
 *
 * <h2>Point-to-point</h2>
 * {@code send(dest, tag, data)} delivers {@code data} to rank {@code dest}, where it is matched to a
 * {@code recv(src, tag, buffer)} by (communicator, source, tag). The messages of one sender are matched in the order
 * they were sent (MPI's non-overtaking rule), whatever their sizes. A message that arrives
 * before its receive is posted is kept in a bounded store (setting {@code unexpected.max.bytes}); when that store is
 * full, senders wait (back-pressure) instead of dropping anything. A rank may send to itself.
 *
 * <p>{@code send} returns once the data has been copied out of the caller's buffer (the buffer may be reused at
 * once); it does not wait for the matching {@code recv}. {@code recv} blocks until a whole message has arrived in
 * the caller's buffer. A message smaller than the buffer fills its prefix and {@code recv} returns its size; a
 * message larger than the buffer is consumed and reported as a {@link MessageSizeMismatchException} naming both
 * sizes. Sizes are 64-bit; payloads of any size are split into chunks (setting {@code chunk.size}) transparently.
 *
 * <p>MPI's full set (docs/point-to-point.md): {@link #isend} and {@link #irecv} return a {@link PointToPointHandle}
 * at once; {@link #ANY_SOURCE} and {@link #ANY_TAG} receive from any rank or with any tag (a receive takes the
 * earliest matchable message that matches it, and a message goes to the earliest posted receive that matches it);
 * {@link #probe} and {@link #iprobe} describe a message without receiving it; {@link #recvStatus}, the handles and
 * {@link #sendRecv} return a {@link Status} (source in this communicator's numbering, tag, size). The {@code recv}
 * methods keep returning counts; use {@code recvStatus} or {@code irecv(...).await()} for the status. Every operation
 * takes a {@link MemorySegment}; {@link java.nio.ByteBuffer} forms (heap or direct, from position to limit; a receive
 * advances the position) and array-slice forms ({@code array, offset, length}) are views of it, not copies.
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

    /** The colour with which a rank takes part in {@link #split} without joining any new communicator. */
    int UNDEFINED = -1;

    /**
     * This process's rank in this communicator.
     *
     * @return this process's rank, in [0, {@link #worldSize()})
     */
    int rank();

    /**
     * The number of ranks in this communicator.
     *
     * @return the number of ranks, at least 1
     */
    int worldSize();

    /**
     * What this process is doing now, for a human: each collective in progress (operation, sequence number, step,
     * the ranks it waits for, for how long), each pending receive, blocking send and blocking probe, "idle since ..."
     * for communicators with nothing in progress, and the last hang report this process logged
     * (docs/failure-model.md "Hang reports"). Never blocks on other ranks; the format is for reading, not parsing.
     *
     * @return a human-readable report of several lines
     */
    String diagnostics();

    /**
     * The communicator's id, unique in the cluster; the world communicator is 0.
     *
     * @return this communicator's id
     */
    int id();

    /**
     * Splits this communicator (a collective: every rank must call it, in the same order as its other
     * collectives). Ranks passing the same {@code color} form a new communicator, numbered by ascending
     * ({@code key}, rank in this communicator); a negative color ({@link #UNDEFINED}) takes part without joining one
     * and gets null. The new communicator supports everything this one does (point-to-point, every collective, async,
     * further splits) concurrently with this one and its siblings, without cross-talk: its traffic is keyed by its
     * own cluster-unique id (docs/collectives.md, "Communicators"). Its ranks, sizes and errors use its own numbering.
     *
     * <p>Closing the new communicator fails its pending operations on this process only and leaves this one (and the
     * world) open; closing the world ends every communicator of the process.
     *
     * @param color the new communicator to join: ranks with the same color form one; negative ({@link #UNDEFINED})
     *         joins none
     * @param key orders the ranks within the new communicator (ties broken by rank in this one)
     * @return this rank's new communicator, or null if {@code color} is negative
     */
    Communicator split(int color, int key);

    /**
     * A new communicator with the same ranks in the same order and its own id: traffic with the same tags on the
     * two never mixes (a collective, like {@link #split}).
     *
     * @return the new communicator; this one stays open
     */
    Communicator dup();

    // ---- groups and per-call deadlines (issue 18 item 3) ----------------------------------------------------------

    /**
     * A communicator of the listed ranks of this one (torch's {@code new_group(ranks)}, MPI's
     * {@code MPI_Comm_create_group}): rank {@code i} of the new communicator is {@code ranks[i]} here. It is a
     * collective over the listed ranks only: each of them calls it with the same list, in the same order as its other
     * {@code group} calls with that list, and ranks not listed do not call it (they may run other operations
     * meanwhile). The ranks first agree over a bootstrap communicator derived from this one's id and the list, then
     * take the new communicator's cluster-unique id as {@link #split} does; the result supports everything this one
     * does, concurrently with it, and is closed on its own.
     *
     * @param ranks ranks of this communicator, distinct, the caller's among them; the order gives the new numbering
     * @return the caller's new communicator, of {@code ranks.length} ranks
     * @throws IllegalArgumentException if {@code ranks} is empty, has a rank out of range or twice, or does not
     *         list the caller; nothing is sent then
     * @throws NullPointerException if {@code ranks} is null
     * @throws OperationTimeoutException if a listed rank did not call it within setting {@code collective.timeout}
     *         (or the deadline of {@link #withTimeout})
     * @throws PeerFailedException if a listed rank failed during the call
     * @throws CommunicatorClosedException if this communicator was closed
     */
    Communicator group(int... ranks);

    /**
     * A view of this communicator whose point-to-point and collective calls each have {@code timeout} as their
     * deadline instead of settings {@code p2p.timeout} and {@code collective.timeout}. It is the same communicator
     * (same rank, id, messages and state; closing either closes both): only the deadline of each call made through
     * the view differs, from the call's start. The handles of asynchronous calls made through it carry that deadline
     * too: their operation fails at it, and {@code await()} with it. A call that passes it throws
     * {@link OperationTimeoutException} naming the operation and {@code timeout}. Shrink, grow and remote calls keep
     * their own settings; communicators made through the view ({@link #split}, {@link #group}, {@link #dup}) have
     * the default deadlines. Cheap: make one per deadline and keep it, or make one per call.
     *
     * @param timeout the deadline of each call, from its start; positive
     * @return the view; its own {@code withTimeout} returns a view of this communicator with the new deadline
     * @throws IllegalArgumentException if {@code timeout} is zero or negative
     * @throws NullPointerException if {@code timeout} is null
     */
    Communicator withTimeout(java.time.Duration timeout);

    // ---- end of groups and per-call deadlines ---------------------------------------------------------------------

    /**
     * The survivors' communicator (ULFM's shrink): every surviving member calls it after a failure, and all of them
     * get a communicator of the same members, in their old order, renumbered densely, without the members that any
     * of them found failed; those are excluded from the cluster. The survivors agree on that set even when more
     * members fail during the call (docs/failure-model.md). Members that do not call it still take part in the
     * agreement in the background, and their later call returns at once.
     *
     * <p>With recovery policy {@code automatic} the world communicator does this by itself; calling it then waits for
     * a recovery in progress and returns this communicator.
     *
     * @return the new communicator; this one stays as it is (close it)
     * @throws PeerFailedException if this process was excluded by the others, or half of the members or more failed
     *         (a minority cannot continue)
     * @throws OperationTimeoutException if no agreement was reached within setting {@code recovery.timeout},
     *         naming the ranks still waited for
     * @throws UnsupportedOperationException if this communicator has no membership service (built by hand)
     */
    Communicator shrink();

    /**
     * Admits the workers waiting at the seed to join this running cluster ({@code nexar worker --elastic}, setting
     * {@code join.elastic}): a collective of the world communicator that every member calls at the same point of its
     * program. Rank 0 asks the seed for the waiting workers (at most as many as setting {@code world.max.size}
     * allows), every member connects to them, and if all of them succeeded the world communicator continues with the
     * newcomers as its last ranks (members keep their ranks). Then {@code stateTransfer} runs on every member, old and
     * new, so the application can bring the newcomers up to date, for example by broadcasting its model and step
     * counter from rank 0. When nobody waits, nothing changes and {@code stateTransfer} does not run.
     *
     * <p>An admitted worker's {@link Nexar#join()} returns once it is connected and admitted; its first call must be
     * {@code grow} with the same {@code stateTransfer}, which then runs it (the members run theirs at that moment)
     * and returns a {@link Growth} with {@code joinedNow} set.
     *
     * @param stateTransfer run on every member after an admission (old and new members alike), with what changed;
     *                      it may call any operation of this communicator
     * @return what changed
     * @throws ClusterFormationException if a member could not connect to a newcomer (no one is admitted then; the
     *         communicator is unchanged)
     * @throws PeerFailedException if a member failed during the call
     * @throws UnsupportedOperationException on a communicator other than the world, or one built without a
     *         membership service
     */
    Growth grow(java.util.function.Consumer<Growth> stateTransfer);

    /**
     * {@link #grow(java.util.function.Consumer)} without state transfer.
     *
     * @return what changed (nothing when no worker was waiting)
     */
    default Growth grow() {
        return grow(g -> { });
    }

    /**
     * Registers {@code listener} for this communicator's membership events: failed members, rebuilt communicators
     * (with the old-to-new rank map) and this process's exclusion. Events about failures already known are not
     * replayed.
     *
     * @param listener called with each membership event, on a thread of nexar (keep it short)
     * @return the registration; close it to stop the events
     */
    MembershipWatch watch(java.util.function.Consumer<MembershipEvent> listener);

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

    // ---------------------------------------------------------------------------- point-to-point: MPI's full set

    /*
     * Non-blocking operations, wildcards, probes, status, sendRecv, and the ByteBuffer and array-slice forms. The
     * ByteBuffer and slice forms are views handed to the MemorySegment forms (no copy): a ByteBuffer (heap or
     * direct) sends or receives the bytes between its position and limit; a receive advances its position by the
     * bytes received, a send leaves it unchanged. Slices are elements [offset, offset + length) of an array.
     */

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
     * send); it ends by a match, setting {@code p2p.timeout}, the recovery policy or {@link #close()}.
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


    /**
     * Remote procedure calls on this communicator: register functions by id, call them on any rank (in this
     * communicator's numbering), blocking or asynchronously. See {@link Rpc}.
     *
     * @return this communicator's RPC service
     * @throws UnsupportedOperationException if this communicator was built without RPC (by hand, in tests)
     */
    Rpc rpc();

    // ------------------------------------------------------------------------------------------------ collectives

    /*
     * Collectives (docs/collectives.md). Every rank of the communicator must call the same collectives in the same
     * order with matching arguments; a rank that differs fails every rank involved with a
     * CollectiveMismatchException instead of hanging. Buffers are MemorySegments of little-endian elements of a
     * DataType with 64-bit counts; a count that does not fit the buffer, a root outside [0, worldSize) or a bitwise
     * operator on a floating-point type raises IllegalArgumentException before anything is sent. Each operation has
     * one deadline (setting collective.timeout). The blocking forms return when this rank's part is done; the Async
     * forms return a handle at once and run the operation on a virtual thread (their buffers must be accessible from
     * other threads: heap, global, auto or shared arena segments).
     */

    /** Blocks until every rank of the communicator has called barrier (dissemination algorithm). */
    void barrier();

    /**
     * Starts a barrier.
     *
     * @return the barrier's handle, returned at once
     */
    CollectiveHandle barrierAsync();

    /**
     * In place: every rank's {@code data} becomes the element-wise reduction of all ranks' {@code data}. Every rank
     * gets bit-identical results.
     *
     * @param data this rank's input, replaced by the result
     * @param type the type of the elements
     * @param count the number of elements
     * @param op the reduction operator; it must apply to the type
     * @throws IllegalArgumentException if count is negative, data holds fewer than count elements, or op does not
     *         apply to type
     */
    default void allReduce(MemorySegment data, DataType type, long count, ReduceOp op) {
        allReduce(data, data, type, count, op);
    }

    /**
     * Out of place: {@code out} receives the reduction of every rank's {@code in} ({@code in} is not written).
     *
     * @param in this rank's input, not written
     * @param out receives the result ({@code count} elements); may be {@code in}
     * @param type the type of the elements
     * @param count the number of elements
     * @param op the reduction operator; it must apply to the type
     */
    void allReduce(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op);

    /**
     * Starts an allReduce ({@code in} may equal {@code out}).
     *
     * @param in this rank's input
     * @param out receives the result ({@code count} elements); may be {@code in}
     * @param type the type of the elements
     * @param count the number of elements
     * @param op the reduction operator; it must apply to the type
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle allReduceAsync(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op);

    /**
     * In-place allReduce of floats.
     *
     * @param data this rank's floats, replaced by the reduction of every rank's
     * @param op the reduction operator; it must apply to the type
     */
    default void allReduce(float[] data, ReduceOp op) {
        Arrays2.allReduce(this, data, op);
    }

    /**
     * In-place allReduce of doubles.
     *
     * @param data this rank's doubles, replaced by the reduction of every rank's
     * @param op the reduction operator; it must apply to the type
     */
    default void allReduce(double[] data, ReduceOp op) {
        Arrays2.allReduce(this, data, op);
    }

    /**
     * In-place allReduce of 32-bit integers.
     *
     * @param data this rank's integers, replaced by the reduction of every rank's
     * @param op the reduction operator; it must apply to the type
     */
    default void allReduce(int[] data, ReduceOp op) {
        Arrays2.allReduce(this, data, op);
    }

    /**
     * In-place allReduce of 64-bit integers.
     *
     * @param data this rank's integers, replaced by the reduction of every rank's
     * @param op the reduction operator; it must apply to the type
     */
    default void allReduce(long[] data, ReduceOp op) {
        Arrays2.allReduce(this, data, op);
    }

    /**
     * Bucketed allReduce: every buffer of {@code buckets} is reduced in place, all of them as one collective (one
     * sequence number, one fingerprint, one schedule over their concatenation), the way a data-parallel trainer
     * reduces its gradient buckets: one operation's latency instead of one per bucket. Each bucket's size is its whole
     * {@code byteSize()}, a multiple of the type's size; buckets may differ in size, but every rank must pass the same
     * sizes in the same order: a rank whose layout differs fails the call on every rank with a
     * {@link CollectiveMismatchException} naming {@link CollectiveMismatchException.Field#LAYOUT}. One bucket is the
     * same call as {@code allReduce(bucket, type, count, op)}.
     *
     * <p>First version: the buckets are copied into one staging buffer (kept between calls), reduced there and copied
     * back, so a call costs two local copies of the total size (docs/collectives.md, "Bucketed allReduce").
     *
     * @param buckets the buffers reduced in place, each a whole number of elements
     * @param type the type of the elements
     * @param op the reduction operator; it must apply to the type
     * @throws IllegalArgumentException if a bucket is null, read-only or not a whole number of elements, or op does
     *         not apply to type
     */
    void allReduce(java.util.List<MemorySegment> buckets, DataType type, ReduceOp op);

    /**
     * Starts a bucketed allReduce; the buckets belong to the operation until it ends.
     *
     * @param buckets the buffers reduced in place, each a whole number of elements
     * @param type the type of the elements
     * @param op the reduction operator; it must apply to the type
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle allReduceAsync(java.util.List<MemorySegment> buckets, DataType type, ReduceOp op);

    /**
     * Bucketed allReduce of float arrays, in place.
     *
     * @param buckets the arrays reduced in place (same lengths in the same order on every rank)
     * @param op the reduction operator; it must apply to the type
     */
    default void allReduce(float[][] buckets, ReduceOp op) {
        Arrays2.allReduceBuckets(this, buckets, DataType.F32, op);
    }

    /**
     * Bucketed allReduce of double arrays, in place.
     *
     * @param buckets the arrays reduced in place (same lengths in the same order on every rank)
     * @param op the reduction operator; it must apply to the type
     */
    default void allReduce(double[][] buckets, ReduceOp op) {
        Arrays2.allReduceBuckets(this, buckets, DataType.F64, op);
    }

    /**
     * Bucketed allReduce of 32-bit integer arrays, in place.
     *
     * @param buckets the arrays reduced in place (same lengths in the same order on every rank)
     * @param op the reduction operator; it must apply to the type
     */
    default void allReduce(int[][] buckets, ReduceOp op) {
        Arrays2.allReduceBuckets(this, buckets, DataType.I32, op);
    }

    /**
     * Bucketed allReduce of 64-bit integer arrays, in place.
     *
     * @param buckets the arrays reduced in place (same lengths in the same order on every rank)
     * @param op the reduction operator; it must apply to the type
     */
    default void allReduce(long[][] buckets, ReduceOp op) {
        Arrays2.allReduceBuckets(this, buckets, DataType.I64, op);
    }

    /**
     * Compressed allReduce with error feedback, in place: each rank adds its {@code residual} to {@code data}, sends
     * only the {@code compressor.kept(count)} elements its {@link Compressor} selects (indices and values) and keeps
     * the rest in {@code residual} for the next call; then every rank's {@code data} becomes the sum (SUM) or mean
     * (AVG) of what all ranks sent, with zeros where no rank sent anything. Bytes on the wire per rank are
     * {@code (worldSize - 1) x (4 + k x (4 + element size))} (an allgather of the compressed payloads) instead of about
     * {@code 2 x count x element size} for a dense allReduce. Every rank gets bit-identical results (payloads are
     * added in rank order on every rank).
     *
     * <p>{@code residual} holds {@code count} elements of F64 for F64 data and of F32 for F32, F16 and BF16 data (the
     * residual keeps what half precision would round away); start it at zeros and pass the same residual to every call
     * for the same tensor. If the call fails, neither {@code data} nor {@code residual} has changed.
     *
     * <p>Every rank must pass the same count, type, op, compressor kind and resulting k (the layout, checked as for
     * bucketed allReduce). A payload that breaks its format (docs/protocol.md) fails the call with a
     * {@link ProtocolException} naming the rank that sent it, before anything is written.
     *
     * @param data this rank's input, replaced by the result
     * @param type the element type: F16, BF16, F32 or F64
     * @param count the number of elements of {@code data}
     * @param op SUM or AVG
     * @param compressor selects the elements each rank sends (the same kind and resulting k on every rank)
     * @param residual the error-feedback residual of this tensor ({@code count} elements, F64 for F64 data, F32
     *         otherwise), updated
     * @throws IllegalArgumentException if type is not F16, BF16, F32 or F64, op is not SUM or AVG, count is negative or
     *         above 2^31 - 9, or a buffer is too small, read-only or the two overlap
     */
    void allReduceCompressed(MemorySegment data, DataType type, long count, ReduceOp op, Compressor compressor,
                             MemorySegment residual);

    /**
     * Starts a compressed allReduce (the compression runs on the calling thread before this returns).
     *
     * @param data this rank's input, replaced by the result
     * @param type the element type: F16, BF16, F32 or F64
     * @param count the number of elements of {@code data}
     * @param op SUM or AVG
     * @param compressor selects the elements each rank sends (the same kind and resulting k on every rank)
     * @param residual the error-feedback residual of this tensor ({@code count} elements, F64 for F64 data, F32
     *         otherwise), updated
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle allReduceCompressedAsync(MemorySegment data, DataType type, long count, ReduceOp op,
                                              Compressor compressor, MemorySegment residual);

    /**
     * Compressed allReduce of floats with a float residual of the same length.
     *
     * @param data this rank's floats, replaced by the result
     * @param op SUM or AVG
     * @param compressor selects the elements each rank sends (the same kind and resulting k on every rank)
     * @param residual the error-feedback residual of this tensor (same length as data), updated
     */
    default void allReduceCompressed(float[] data, ReduceOp op, Compressor compressor, float[] residual) {
        Arrays2.allReduceCompressed(this, data, op, compressor, residual);
    }

    /**
     * Compressed allReduce of doubles with a double residual of the same length.
     *
     * @param data this rank's doubles, replaced by the result
     * @param op SUM or AVG
     * @param compressor selects the elements each rank sends (the same kind and resulting k on every rank)
     * @param residual the error-feedback residual of this tensor (same length as data), updated
     */
    default void allReduceCompressed(double[] data, ReduceOp op, Compressor compressor, double[] residual) {
        Arrays2.allReduceCompressed(this, data, op, compressor, residual);
    }

    /**
     * Copies {@code root}'s {@code count} elements of {@code data} into every other rank's {@code data}.
     *
     * @param data the root's elements to send; on the other ranks, receives them
     * @param type the type of the elements
     * @param count the number of elements
     * @param root the rank whose data is copied, in [0, worldSize)
     * @throws IllegalArgumentException if root is not in [0, worldSize) or data is too small
     */
    void broadcast(MemorySegment data, DataType type, long count, int root);

    /**
     * Starts a broadcast.
     *
     * @param data the root's elements to send; on the other ranks, receives them
     * @param type the type of the elements
     * @param count the number of elements
     * @param root the rank whose data is copied, in [0, worldSize)
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle broadcastAsync(MemorySegment data, DataType type, long count, int root);

    /**
     * Broadcast of floats.
     *
     * @param data the root's elements to send; on the other ranks, receives them (same length on every rank)
     * @param root the rank whose data is copied, in [0, worldSize)
     */
    default void broadcast(float[] data, int root) {
        Arrays2.broadcast(this, data, root);
    }

    /**
     * Broadcast of doubles.
     *
     * @param data the root's elements to send; on the other ranks, receives them (same length on every rank)
     * @param root the rank whose data is copied, in [0, worldSize)
     */
    default void broadcast(double[] data, int root) {
        Arrays2.broadcast(this, data, root);
    }

    /**
     * Broadcast of 32-bit integers.
     *
     * @param data the root's elements to send; on the other ranks, receives them (same length on every rank)
     * @param root the rank whose data is copied, in [0, worldSize)
     */
    default void broadcast(int[] data, int root) {
        Arrays2.broadcast(this, data, root);
    }

    /**
     * Broadcast of 64-bit integers.
     *
     * @param data the root's elements to send; on the other ranks, receives them (same length on every rank)
     * @param root the rank whose data is copied, in [0, worldSize)
     */
    default void broadcast(long[] data, int root) {
        Arrays2.broadcast(this, data, root);
    }

    /**
     * Reduces every rank's {@code in} into {@code root}'s {@code out} ({@code out} may equal {@code in}; on other
     * ranks it is ignored and may be null).
     *
     * @param in this rank's input
     * @param out receives the result on the root (may be {@code in}); ignored elsewhere, may be null
     * @param type the type of the elements
     * @param count the number of elements per rank
     * @param op the reduction operator; it must apply to the type
     * @param root the rank that receives the result, in [0, worldSize)
     */
    void reduce(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op, int root);

    /**
     * Starts a reduce.
     *
     * @param in this rank's input
     * @param out receives the result on the root (may be {@code in}); ignored elsewhere, may be null
     * @param type the type of the elements
     * @param count the number of elements per rank
     * @param op the reduction operator; it must apply to the type
     * @param root the rank that receives the result, in [0, worldSize)
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle reduceAsync(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op,
                                 int root);

    /**
     * reduce of floats: {@code out} (root only; may be null elsewhere) receives the reduction of every rank's {@code in}.
     *
     * @param in this rank's input
     * @param out receives the result on the root (same length as {@code in}); ignored elsewhere, may be null
     * @param op the reduction operator; it must apply to the type
     * @param root the rank that receives the result, in [0, worldSize)
     */
    default void reduce(float[] in, float[] out, ReduceOp op, int root) {
        Arrays2.reduce(this, in, out, op, root);
    }

    /**
     * reduce of doubles: {@code out} (root only; may be null elsewhere) receives the reduction of every rank's {@code in}.
     *
     * @param in this rank's input
     * @param out receives the result on the root (same length as {@code in}); ignored elsewhere, may be null
     * @param op the reduction operator; it must apply to the type
     * @param root the rank that receives the result, in [0, worldSize)
     */
    default void reduce(double[] in, double[] out, ReduceOp op, int root) {
        Arrays2.reduce(this, in, out, op, root);
    }

    /**
     * reduce of 32-bit integers: {@code out} (root only; may be null elsewhere) receives the reduction of every rank's {@code in}.
     *
     * @param in this rank's input
     * @param out receives the result on the root (same length as {@code in}); ignored elsewhere, may be null
     * @param op the reduction operator; it must apply to the type
     * @param root the rank that receives the result, in [0, worldSize)
     */
    default void reduce(int[] in, int[] out, ReduceOp op, int root) {
        Arrays2.reduce(this, in, out, op, root);
    }

    /**
     * reduce of 64-bit integers: {@code out} (root only; may be null elsewhere) receives the reduction of every rank's {@code in}.
     *
     * @param in this rank's input
     * @param out receives the result on the root (same length as {@code in}); ignored elsewhere, may be null
     * @param op the reduction operator; it must apply to the type
     * @param root the rank that receives the result, in [0, worldSize)
     */
    default void reduce(long[] in, long[] out, ReduceOp op, int root) {
        Arrays2.reduce(this, in, out, op, root);
    }

    /**
     * {@code out} (worldSize x count elements) receives every rank's {@code count} elements of {@code in}.
     *
     * @param in this rank's {@code count} elements
     * @param out receives worldSize x count elements, rank j's at block j
     * @param type the type of the elements
     * @param count the number of elements per rank
     */
    void allGather(MemorySegment in, MemorySegment out, DataType type, long count);

    /**
     * Starts an allGather.
     *
     * @param in this rank's {@code count} elements
     * @param out receives worldSize x count elements, rank j's at block j
     * @param type the type of the elements
     * @param count the number of elements per rank
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle allGatherAsync(MemorySegment in, MemorySegment out, DataType type, long count);

    /**
     * allGather of floats: {@code out} holds worldSize x in.length elements.
     *
     * @param in this rank's elements (same length on every rank)
     * @param out receives worldSize x in.length elements, rank j's at block j
     */
    default void allGather(float[] in, float[] out) {
        Arrays2.allGather(this, in, out);
    }

    /**
     * allGather of doubles: {@code out} holds worldSize x in.length elements.
     *
     * @param in this rank's elements (same length on every rank)
     * @param out receives worldSize x in.length elements, rank j's at block j
     */
    default void allGather(double[] in, double[] out) {
        Arrays2.allGather(this, in, out);
    }

    /**
     * allGather of 32-bit integers: {@code out} holds worldSize x in.length elements.
     *
     * @param in this rank's elements (same length on every rank)
     * @param out receives worldSize x in.length elements, rank j's at block j
     */
    default void allGather(int[] in, int[] out) {
        Arrays2.allGather(this, in, out);
    }

    /**
     * allGather of 64-bit integers: {@code out} holds worldSize x in.length elements.
     *
     * @param in this rank's elements (same length on every rank)
     * @param out receives worldSize x in.length elements, rank j's at block j
     */
    default void allGather(long[] in, long[] out) {
        Arrays2.allGather(this, in, out);
    }

    /**
     * allGather with {@code counts[j]} elements from rank j, packed in rank order in {@code out}.
     *
     * @param in this rank's {@code counts[rank]} elements
     * @param out receives the sum of counts elements, in rank order
     * @param type the type of the elements
     * @param counts the number of elements from each rank, indexed by rank (the same on every rank)
     */
    void allGatherV(MemorySegment in, MemorySegment out, DataType type, long[] counts);

    /**
     * Starts an allGatherV.
     *
     * @param in this rank's {@code counts[rank]} elements
     * @param out receives the sum of counts elements, in rank order
     * @param type the type of the elements
     * @param counts the number of elements from each rank, indexed by rank (the same on every rank)
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle allGatherVAsync(MemorySegment in, MemorySegment out, DataType type, long[] counts);

    /**
     * {@code in} holds worldSize blocks of {@code count} elements; rank r's {@code out} receives the reduction over all
     * ranks of block r.
     *
     * @param in worldSize blocks of {@code count} elements; block r is reduced into rank r's out
     * @param out receives this rank's block of the reduction ({@code count} elements)
     * @param type the type of the elements
     * @param count the number of elements of each block
     * @param op the reduction operator; it must apply to the type
     */
    void reduceScatter(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op);

    /**
     * Starts a reduceScatter.
     *
     * @param in worldSize blocks of {@code count} elements; block r is reduced into rank r's out
     * @param out receives this rank's block of the reduction ({@code count} elements)
     * @param type the type of the elements
     * @param count the number of elements of each block
     * @param op the reduction operator; it must apply to the type
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle reduceScatterAsync(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op);

    /**
     * reduceScatter of floats: {@code in} holds worldSize x out.length elements.
     *
     * @param in worldSize blocks of out.length elements
     * @param out receives this rank's block of the reduction
     * @param op the reduction operator; it must apply to the type
     */
    default void reduceScatter(float[] in, float[] out, ReduceOp op) {
        Arrays2.reduceScatter(this, in, out, op);
    }

    /**
     * reduceScatter of doubles: {@code in} holds worldSize x out.length elements.
     *
     * @param in worldSize blocks of out.length elements
     * @param out receives this rank's block of the reduction
     * @param op the reduction operator; it must apply to the type
     */
    default void reduceScatter(double[] in, double[] out, ReduceOp op) {
        Arrays2.reduceScatter(this, in, out, op);
    }

    /**
     * reduceScatter of 32-bit integers: {@code in} holds worldSize x out.length elements.
     *
     * @param in worldSize blocks of out.length elements
     * @param out receives this rank's block of the reduction
     * @param op the reduction operator; it must apply to the type
     */
    default void reduceScatter(int[] in, int[] out, ReduceOp op) {
        Arrays2.reduceScatter(this, in, out, op);
    }

    /**
     * reduceScatter of 64-bit integers: {@code in} holds worldSize x out.length elements.
     *
     * @param in worldSize blocks of out.length elements
     * @param out receives this rank's block of the reduction
     * @param op the reduction operator; it must apply to the type
     */
    default void reduceScatter(long[] in, long[] out, ReduceOp op) {
        Arrays2.reduceScatter(this, in, out, op);
    }

    /**
     * Block j of {@code in} ({@code count} elements) goes to rank j; block j of {@code out} comes from rank j.
     *
     * @param in worldSize blocks of {@code count} elements; block j goes to rank j
     * @param out receives worldSize blocks of {@code count} elements; block j comes from rank j
     * @param type the type of the elements
     * @param count the number of elements of each block
     */
    void allToAll(MemorySegment in, MemorySegment out, DataType type, long count);

    /**
     * Starts an allToAll.
     *
     * @param in worldSize blocks of {@code count} elements; block j goes to rank j
     * @param out receives worldSize blocks of {@code count} elements; block j comes from rank j
     * @param type the type of the elements
     * @param count the number of elements of each block
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle allToAllAsync(MemorySegment in, MemorySegment out, DataType type, long count);

    /**
     * allToAll with {@code sendCounts[j]} elements to and {@code recvCounts[j]} from rank j, packed in rank order.
     *
     * @param in the elements this rank sends, packed in rank order
     * @param sendCounts the number of elements to each rank, indexed by rank
     * @param out receives the elements from every rank, packed in rank order
     * @param recvCounts the number of elements from each rank, indexed by rank
     * @param type the type of the elements
     */
    void allToAllV(MemorySegment in, long[] sendCounts, MemorySegment out, long[] recvCounts, DataType type);

    /**
     * Starts an allToAllV.
     *
     * @param in the elements this rank sends, packed in rank order
     * @param sendCounts the number of elements to each rank, indexed by rank
     * @param out receives the elements from every rank, packed in rank order
     * @param recvCounts the number of elements from each rank, indexed by rank
     * @param type the type of the elements
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle allToAllVAsync(MemorySegment in, long[] sendCounts, MemorySegment out, long[] recvCounts,
                                    DataType type);

    /**
     * {@code root}'s {@code out} (worldSize x count) receives every rank's {@code in}; out may be null elsewhere.
     *
     * @param in this rank's {@code count} elements
     * @param out on the root, receives worldSize x count elements, rank j's at block j; ignored elsewhere, may be null
     * @param type the type of the elements
     * @param count the number of elements per rank
     * @param root the rank that receives, in [0, worldSize)
     */
    void gather(MemorySegment in, MemorySegment out, DataType type, long count, int root);

    /**
     * Starts a gather.
     *
     * @param in this rank's {@code count} elements
     * @param out on the root, receives worldSize x count elements, rank j's at block j; ignored elsewhere, may be null
     * @param type the type of the elements
     * @param count the number of elements per rank
     * @param root the rank that receives, in [0, worldSize)
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle gatherAsync(MemorySegment in, MemorySegment out, DataType type, long count, int root);

    /**
     * gather with {@code counts[j]} elements from rank j (every rank passes the same counts).
     *
     * @param in this rank's {@code counts[rank]} elements
     * @param out on the root, receives the sum of counts elements in rank order; ignored elsewhere, may be null
     * @param type the type of the elements
     * @param counts the number of elements from each rank, indexed by rank (the same on every rank)
     * @param root the rank that receives, in [0, worldSize)
     */
    void gatherV(MemorySegment in, MemorySegment out, DataType type, long[] counts, int root);

    /**
     * Starts a gatherV.
     *
     * @param in this rank's {@code counts[rank]} elements
     * @param out on the root, receives the sum of counts elements in rank order; ignored elsewhere, may be null
     * @param type the type of the elements
     * @param counts the number of elements from each rank, indexed by rank (the same on every rank)
     * @param root the rank that receives, in [0, worldSize)
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle gatherVAsync(MemorySegment in, MemorySegment out, DataType type, long[] counts, int root);

    /**
     * Rank j's {@code out} receives block j of {@code root}'s {@code in}; in may be null elsewhere.
     *
     * @param in on the root, worldSize blocks of {@code count} elements, block j for rank j; ignored elsewhere, may be
     *         null
     * @param out receives this rank's block ({@code count} elements)
     * @param type the type of the elements
     * @param count the number of elements per rank
     * @param root the rank that sends, in [0, worldSize)
     */
    void scatter(MemorySegment in, MemorySegment out, DataType type, long count, int root);

    /**
     * Starts a scatter.
     *
     * @param in on the root, worldSize blocks of {@code count} elements, block j for rank j; ignored elsewhere, may be
     *         null
     * @param out receives this rank's block ({@code count} elements)
     * @param type the type of the elements
     * @param count the number of elements per rank
     * @param root the rank that sends, in [0, worldSize)
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle scatterAsync(MemorySegment in, MemorySegment out, DataType type, long count, int root);

    /**
     * scatter with {@code counts[j]} elements for rank j (every rank passes the same counts).
     *
     * @param in on the root, the elements for every rank packed in rank order; ignored elsewhere, may be null
     * @param out receives this rank's {@code counts[rank]} elements
     * @param type the type of the elements
     * @param counts the number of elements for each rank, indexed by rank (the same on every rank)
     * @param root the rank that sends, in [0, worldSize)
     */
    void scatterV(MemorySegment in, MemorySegment out, DataType type, long[] counts, int root);

    /**
     * Starts a scatterV.
     *
     * @param in on the root, the elements for every rank packed in rank order; ignored elsewhere, may be null
     * @param out receives this rank's {@code counts[rank]} elements
     * @param type the type of the elements
     * @param counts the number of elements for each rank, indexed by rank (the same on every rank)
     * @param root the rank that sends, in [0, worldSize)
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle scatterVAsync(MemorySegment in, MemorySegment out, DataType type, long[] counts, int root);

    /*
     * ByteBuffer forms of gather, scatter and allToAll: each buffer (heap or direct) holds the elements between its
     * position and limit, a view handed to the MemorySegment form (no copy). When the call returns, the position of
     * the buffer that received advances by the bytes received (the root's out of a gather; out of a scatter and an
     * allToAll); the buffers that send are not changed. Elements are moved as bytes, in the order they are in.
     */

    /**
     * {@link #gather(MemorySegment, MemorySegment, DataType, long, int)} of byte buffers; the root's {@code out}
     * position advances by worldSize x count elements.
     *
     * @param in this rank's {@code count} elements, from its position (not changed)
     * @param out on the root, receives worldSize x count elements from its position; ignored elsewhere, may be null
     * @param type the type of the elements
     * @param count the number of elements per rank
     * @param root the rank that receives, in [0, worldSize)
     * @throws IllegalArgumentException if a buffer the call uses is null, too small or (out) read-only, or as the
     *         segment form
     * @throws NexarException as the segment form
     */
    default void gather(ByteBuffer in, ByteBuffer out, DataType type, long count, int root) {
        CollectiveBuffers.gather(this, in, out, type, count, root);
    }

    /**
     * {@link #gatherV(MemorySegment, MemorySegment, DataType, long[], int)} of byte buffers; the root's {@code out}
     * position advances by the sum of counts elements.
     *
     * @param in this rank's {@code counts[rank]} elements, from its position (not changed)
     * @param out on the root, receives the sum of counts elements in rank order from its position; ignored elsewhere,
     *         may be null
     * @param type the type of the elements
     * @param counts the number of elements from each rank, indexed by rank (the same on every rank)
     * @param root the rank that receives, in [0, worldSize)
     * @throws IllegalArgumentException if a buffer the call uses is null, too small or (out) read-only, or as the
     *         segment form
     * @throws NexarException as the segment form
     */
    default void gatherV(ByteBuffer in, ByteBuffer out, DataType type, long[] counts, int root) {
        CollectiveBuffers.gatherV(this, in, out, type, counts, root);
    }

    /**
     * {@link #scatter(MemorySegment, MemorySegment, DataType, long, int)} of byte buffers; {@code out}'s position
     * advances by {@code count} elements.
     *
     * @param in on the root, worldSize blocks of {@code count} elements from its position (not changed); ignored
     *         elsewhere, may be null
     * @param out receives this rank's block from its position
     * @param type the type of the elements
     * @param count the number of elements per rank
     * @param root the rank that sends, in [0, worldSize)
     * @throws IllegalArgumentException if a buffer the call uses is null, too small or (out) read-only, or as the
     *         segment form
     * @throws NexarException as the segment form
     */
    default void scatter(ByteBuffer in, ByteBuffer out, DataType type, long count, int root) {
        CollectiveBuffers.scatter(this, in, out, type, count, root);
    }

    /**
     * {@link #scatterV(MemorySegment, MemorySegment, DataType, long[], int)} of byte buffers; {@code out}'s position
     * advances by {@code counts[rank]} elements.
     *
     * @param in on the root, the elements for every rank packed in rank order from its position (not changed);
     *         ignored elsewhere, may be null
     * @param out receives this rank's {@code counts[rank]} elements from its position
     * @param type the type of the elements
     * @param counts the number of elements for each rank, indexed by rank (the same on every rank)
     * @param root the rank that sends, in [0, worldSize)
     * @throws IllegalArgumentException if a buffer the call uses is null, too small or (out) read-only, or as the
     *         segment form
     * @throws NexarException as the segment form
     */
    default void scatterV(ByteBuffer in, ByteBuffer out, DataType type, long[] counts, int root) {
        CollectiveBuffers.scatterV(this, in, out, type, counts, root);
    }

    /**
     * {@link #allToAll(MemorySegment, MemorySegment, DataType, long)} of byte buffers; {@code out}'s position
     * advances by worldSize x count elements.
     *
     * @param in worldSize blocks of {@code count} elements from its position (not changed); block j goes to rank j
     * @param out receives worldSize blocks of {@code count} elements from its position; block j comes from rank j
     * @param type the type of the elements
     * @param count the number of elements of each block
     * @throws IllegalArgumentException if a buffer is null, too small or (out) read-only, or as the segment form
     * @throws NexarException as the segment form
     */
    default void allToAll(ByteBuffer in, ByteBuffer out, DataType type, long count) {
        CollectiveBuffers.allToAll(this, in, out, type, count);
    }

    /**
     * {@link #allToAllV(MemorySegment, long[], MemorySegment, long[], DataType)} of byte buffers; {@code out}'s
     * position advances by the sum of recvCounts elements.
     *
     * @param in the elements this rank sends, packed in rank order from its position (not changed)
     * @param sendCounts the number of elements to each rank, indexed by rank
     * @param out receives the elements from every rank, packed in rank order from its position
     * @param recvCounts the number of elements from each rank, indexed by rank
     * @param type the type of the elements
     * @throws IllegalArgumentException if a buffer is null, too small or (out) read-only, or as the segment form
     * @throws NexarException as the segment form
     */
    default void allToAllV(ByteBuffer in, long[] sendCounts, ByteBuffer out, long[] recvCounts, DataType type) {
        CollectiveBuffers.allToAllV(this, in, sendCounts, out, recvCounts, type);
    }

    /**
     * Inclusive prefix reduction: rank r's {@code out} = in(0) op ... op in(r); AVG divides by r + 1.
     *
     * @param in this rank's input
     * @param out receives the inclusive prefix reduction up to this rank (same number of elements)
     * @param type the type of the elements
     * @param count the number of elements
     * @param op the reduction operator; it must apply to the type
     */
    void scan(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op);

    /**
     * Starts a scan.
     *
     * @param in this rank's input
     * @param out receives the inclusive prefix reduction up to this rank (same number of elements)
     * @param type the type of the elements
     * @param count the number of elements
     * @param op the reduction operator; it must apply to the type
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle scanAsync(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op);

    /**
     * Inclusive scan of floats.
     *
     * @param in this rank's input
     * @param out receives the inclusive prefix reduction up to this rank (same number of elements)
     * @param op the reduction operator; it must apply to the type
     */
    default void scan(float[] in, float[] out, ReduceOp op) {
        Arrays2.scan(this, in, out, op, false);
    }

    /**
     * Inclusive scan of doubles.
     *
     * @param in this rank's input
     * @param out receives the inclusive prefix reduction up to this rank (same number of elements)
     * @param op the reduction operator; it must apply to the type
     */
    default void scan(double[] in, double[] out, ReduceOp op) {
        Arrays2.scan(this, in, out, op, false);
    }

    /**
     * Inclusive scan of 32-bit integers.
     *
     * @param in this rank's input
     * @param out receives the inclusive prefix reduction up to this rank (same number of elements)
     * @param op the reduction operator; it must apply to the type
     */
    default void scan(int[] in, int[] out, ReduceOp op) {
        Arrays2.scan(this, in, out, op, false);
    }

    /**
     * Inclusive scan of 64-bit integers.
     *
     * @param in this rank's input
     * @param out receives the inclusive prefix reduction up to this rank (same number of elements)
     * @param op the reduction operator; it must apply to the type
     */
    default void scan(long[] in, long[] out, ReduceOp op) {
        Arrays2.scan(this, in, out, op, false);
    }

    /**
     * Exclusive prefix reduction: rank r's {@code out} = in(0) op ... op in(r-1); rank 0 gets the operator's identity
     * (0 for SUM and AVG, 1 for PROD, the type's largest value for MIN, smallest for MAX, all ones for BAND).
     *
     * @param in this rank's input
     * @param out receives the reduction of the ranks before this one (the identity on rank 0)
     * @param type the type of the elements
     * @param count the number of elements
     * @param op the reduction operator; it must apply to the type
     */
    void exclusiveScan(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op);

    /**
     * Starts an exclusiveScan.
     *
     * @param in this rank's input
     * @param out receives the reduction of the ranks before this one (the identity on rank 0)
     * @param type the type of the elements
     * @param count the number of elements
     * @param op the reduction operator; it must apply to the type
     * @return the operation's handle, returned at once; await it before touching the buffers again
     */
    CollectiveHandle exclusiveScanAsync(MemorySegment in, MemorySegment out, DataType type, long count, ReduceOp op);

    /**
     * Exclusive scan of floats.
     *
     * @param in this rank's input
     * @param out receives the reduction of the ranks before this one (the identity on rank 0)
     * @param op the reduction operator; it must apply to the type
     */
    default void exclusiveScan(float[] in, float[] out, ReduceOp op) {
        Arrays2.scan(this, in, out, op, true);
    }

    /**
     * Exclusive scan of doubles.
     *
     * @param in this rank's input
     * @param out receives the reduction of the ranks before this one (the identity on rank 0)
     * @param op the reduction operator; it must apply to the type
     */
    default void exclusiveScan(double[] in, double[] out, ReduceOp op) {
        Arrays2.scan(this, in, out, op, true);
    }

    /**
     * Exclusive scan of 32-bit integers.
     *
     * @param in this rank's input
     * @param out receives the reduction of the ranks before this one (the identity on rank 0)
     * @param op the reduction operator; it must apply to the type
     */
    default void exclusiveScan(int[] in, int[] out, ReduceOp op) {
        Arrays2.scan(this, in, out, op, true);
    }

    /**
     * Exclusive scan of 64-bit integers.
     *
     * @param in this rank's input
     * @param out receives the reduction of the ranks before this one (the identity on rank 0)
     * @param op the reduction operator; it must apply to the type
     */
    default void exclusiveScan(long[] in, long[] out, ReduceOp op) {
        Arrays2.scan(this, in, out, op, true);
    }

    /**
     * Closes this communicator: pending and later operations fail with {@link CommunicatorClosedException}, and peers
     * are told that this rank left. Idempotent; bounded by setting {@code close.timeout}.
     */
    @Override
    void close();
}
