package io.nexar.internal.transport;

/**
 * What every receive side of a process (the collective engine, the point-to-point mailbox, RPC) is told about its
 * peers and its end. {@link InboundRouter} tells all of them, in one order, through this contract alone, so a receive
 * side cannot be left out of a peer's death, an abort or a close (issue 13 item 6; docs/architecture.md, "Toward one
 * receive side per communicator"). Messages reach each side through its own methods: they differ in what they carry.
 */
public interface ReceiveSide {

    /**
     * World rank {@code peer} failed or left: what needs it fails; after a polite leave, only what still needed
     * something from it.
     *
     * @param peer the world rank
     * @param why completes "rank N ...", for example {@code failed (...)} or {@code left (...)}
     * @param cause the exception behind it, or null
     */
    void onPeerDown(int peer, String why, Throwable cause);

    /**
     * World rank {@code peer} is reachable again (a sparse world's rebuild bridged the hole that had cut it off):
     * what is posted from now on with it is no longer refused. Nothing by default.
     *
     * @param peer the world rank
     */
    default void forgetDown(int peer) {
    }

    /**
     * Fails everything pending (recovery policy abort, or this process excluded).
     *
     * @param peer the world rank to blame, or -1
     * @param why completes "cannot complete: ..."
     */
    void abortAll(int peer, String why);

    /**
     * Retires communicator {@code group}, which an automatic recovery replaced (or which cannot go on: no quorum after
     * the others left): fails what is pending on it, but for collectives that can still finish (see
     * {@code CollectiveEngine#retire}).
     *
     * @param group the communicator's group
     * @param failedWorld the world ranks that failed or left
     * @param why completes "cannot complete: ..."
     */
    void retire(io.nexar.internal.collective.Group group, int[] failedWorld, String why);

    /**
     * Fails everything pending and refuses what comes later. Idempotent.
     *
     * @param reason why, named in the errors
     */
    void close(String reason);
}
