package io.nexar;

import io.nexar.rpc.Rpc;
import java.lang.foreign.MemorySegment;

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
public interface Communicator extends PointToPointViews, ReducingCollectives, DataMovementCollectives,
        AsyncCollectives, AutoCloseable {

    /** The colour with which a rank takes part in {@link #split} without joining any new communicator. */
    int UNDEFINED = -1;

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
     * @throws CollectiveMismatchException if a member called another collective instead of {@code grow}
     * @throws UnsupportedOperationException on a communicator other than the world, or one built without a
     *         membership service, or with a sparse {@code topology} (not supported yet)
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
     * Remote procedure calls on this communicator: register functions by id, call them on any rank (in this
     * communicator's numbering), blocking or asynchronously. See {@link Rpc}.
     *
     * @return this communicator's RPC service
     * @throws UnsupportedOperationException if this communicator was built without RPC (by hand, in tests)
     */
    Rpc rpc();

    /**
     * Closes this communicator: pending and later operations fail with {@link CommunicatorClosedException}, and peers
     * are told that this rank left. Idempotent; bounded by setting {@code close.timeout}.
     */
    @Override
    void close();
}
