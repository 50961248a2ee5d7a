package io.nexar.internal.transport;

import io.nexar.ErrorContext;
import io.nexar.internal.protocol.Message;
import io.nexar.internal.util.Deadline;

/**
 * Moves {@link Message}s between the ranks of one cluster. One instance per process (per rank). Inbound messages go
 * to the {@link InboundHandler} given at construction, on a transport thread.
 *
 * <p>Contract (checked by the transport contract suite for every implementation): messages sent on one lane to one
 * peer arrive in order; a send returns once the message's bytes were copied out of the caller's memory; a send that
 * the receiver cannot take (its unexpected-message store is full) waits, at most until the deadline; a peer that
 * fails or leaves is reported to the handler once.
 */
public interface Transport extends AutoCloseable {

    /** The local rank. */
    int rank();

    /** The number of ranks. */
    int worldSize();

    /**
     * Sends one message to {@code peer} (which may be the local rank).
     *
     * @param context names the operation for errors, asked for only if the send fails; the transport adds the peer
     *     to the context of a failure that concerns it, so callers may pass one source for all the sends of an
     *     operation
     * @throws io.nexar.OperationTimeoutException if the receiver did not make room before the deadline
     * @throws io.nexar.PeerFailedException if the peer is gone
     * @throws io.nexar.CommunicatorClosedException if this transport is closed
     */
    void send(int peer, Lane lane, Message message, Deadline deadline, ContextSource context);

    /**
     * As {@link #send(int, Lane, Message, Deadline, ContextSource)}, for a caller that has its context at hand (the
     * control, RPC and abort paths).
     *
     * @param context names the operation for errors
     */
    default void send(int peer, Lane lane, Message message, Deadline deadline, ErrorContext context) {
        send(peer, lane, message, deadline, (ContextSource) () -> context);
    }

    /**
     * Waits until what was sent to {@code peer} so far has left this process (handed to the network), at most until
     * {@code deadline}; returns early, without an error, if the peer is down or this transport is closing. A rank
     * that fails an operation because of a failure it must tell others about calls it before the failure reaches the
     * program, which may exit at once (docs/failure-model.md, "Sparse topologies"). Transports that deliver before
     * {@link #send} returns need not override it.
     *
     * @param peer a world rank
     * @param deadline how long to wait at most
     */
    default void flush(int peer, Deadline deadline) {
    }

    /**
     * Excludes {@code peer} for good (recovery removed it): the peer is reported down to the handler if it was not
     * yet, its connection is closed, and nothing from it is accepted again, whatever it sends or however it
     * reconnects. Idempotent; never blocks.
     *
     * @param why completes "rank N ...", for example {@code was excluded by the survivors}
     */
    void exclude(int peer, String why);

    /**
     * Connects to workers admitted into the running cluster ({@link io.nexar.Communicator#grow}): adds their links
     * and returns once each is ready, at most until {@code deadline}. The world size grows to the highest new world
     * rank plus one.
     *
     * @throws io.nexar.ClusterFormationException naming the newcomer that could not be connected
     * @throws UnsupportedOperationException if this transport cannot grow
     */
    default void admit(java.util.List<Newcomer> newcomers, Deadline deadline) {
        throw new UnsupportedOperationException("this transport cannot admit workers into a running cluster");
    }

    /**
     * Like {@link #admit(java.util.List, Deadline)}, for a growth of the world whose current members are
     * {@code members}: a transport that relays over a sparse topology needs them to compute the grown world's
     * neighbour graph the same way on every rank ({@link RelayTransport}). The grown world is not used until
     * {@link #admitted} (every member then switches to it); if the growth fails instead, each newcomer is
     * {@link #exclude excluded}.
     *
     * @param newcomers the admitted workers, each world rank above every rank this transport knows
     * @param members the world ranks of the current members, ascending or in communicator order
     * @param deadline when to give up
     * @throws io.nexar.ClusterFormationException naming the newcomer that could not be connected, or why the grown
     *         world cannot be built on this topology
     * @throws UnsupportedOperationException if this transport cannot grow
     */
    default void admit(java.util.List<Newcomer> newcomers, int[] members, Deadline deadline) {
        admit(newcomers, deadline);
    }

    /**
     * Opens links to {@code linked} (some of the workers admitted by a growth, possibly none) and grows the world to
     * {@code worldSize} ranks, the highest admitted world rank plus one: on a sparse topology a member links only to
     * the newcomers that are its neighbours in the grown world's graph.
     *
     * @param linked the newcomers to connect to
     * @param worldSize the grown world size, above every rank in {@code linked}
     * @param deadline when to give up
     * @throws io.nexar.ClusterFormationException naming the newcomer that could not be connected
     * @throws UnsupportedOperationException if this transport cannot grow
     */
    default void admitLinks(java.util.List<Newcomer> linked, int worldSize, Deadline deadline) {
        throw new UnsupportedOperationException("this transport cannot admit workers into a running cluster");
    }

    /**
     * Every member decided to admit the newcomers of the last {@link #admit(java.util.List, int[], Deadline)}: the
     * world grows into {@code worldRanks}. Nothing to do for a full mesh.
     *
     * @param worldRanks the world ranks of the grown world, members then newcomers
     */
    default void admitted(int[] worldRanks) {
    }

    /**
     * Whether this transport can open links between running members ({@link #linkMembers}): a recovery on a sparse
     * topology then bridges the holes that the failed ranks leave in the neighbour graph ({@link RelayTransport}).
     *
     * @return false unless overridden
     */
    default boolean linksMembers() {
        return false;
    }

    /**
     * What this rank sends a running member it opens a link to ({@link #linkMembers}), so that the member can reach it
     * and knows whom to accept: an encoded PEER_TABLE frame of one entry, this rank's (docs/protocol.md 4.11); null
     * if the transport needs none (every pair of in-process endpoints reaches each other).
     *
     * @return the encoded frame, or null
     */
    default byte[] linkOffer() {
        return null;
    }

    /**
     * Opens links to running members this rank holds no link to (a recovery on a sparse topology bridges a hole):
     * each of {@code peers} calls it for this rank too, and the link is up once both did. The lower rank of a pair
     * dials, the higher accepts only the member identity of the peer's {@link #linkOffer}. Returns once every link is
     * up.
     *
     * @param peers the members to link to, each with its {@link #linkOffer} (empty if {@code linkOffer} is null)
     * @param listed run once the peers are expected (in the peer table: a dial from them is accepted), before this
     *     call waits for their links
     * @param deadline when to give up
     * @throws io.nexar.PeerFailedException naming a peer whose link is not up at the deadline
     * @throws UnsupportedOperationException if {@link #linksMembers} is false
     */
    default void linkMembers(java.util.List<Newcomer> peers, Runnable listed, Deadline deadline) {
        throw new UnsupportedOperationException("this transport cannot open links between running members");
    }

    /** Says goodbye to every peer and releases every resource. Idempotent. */
    @Override
    void close();
}
