package io.nexar;

/** The operation that an error or an event belongs to. Printed in camel case, as in the API. */
public enum Operation {
    /** {@link Communicator#send}. */
    SEND("send"),
    /** {@link Communicator#recv}. */
    RECV("recv"),
    /** {@code probe} or {@code iprobe}: looking for a message without receiving it. */
    PROBE("probe"),
    /** {@link Communicator#allReduce} in all its forms. */
    ALL_REDUCE("allReduce"),
    /** {@link Communicator#broadcast}. */
    BROADCAST("broadcast"),
    /** {@link Communicator#reduce}. */
    REDUCE("reduce"),
    /** {@link Communicator#allGather} and allGatherV. */
    ALL_GATHER("allGather"),
    /** {@link Communicator#reduceScatter}. */
    REDUCE_SCATTER("reduceScatter"),
    /** {@link Communicator#allToAll} and allToAllV. */
    ALL_TO_ALL("allToAll"),
    /** {@link Communicator#gather} and gatherV. */
    GATHER("gather"),
    /** {@link Communicator#scatter} and scatterV. */
    SCATTER("scatter"),
    /** {@link Communicator#scan}. */
    SCAN("scan"),
    /** {@link Communicator#exclusiveScan}. */
    EXCLUSIVE_SCAN("exclusiveScan"),
    /** {@link Communicator#barrier}. */
    BARRIER("barrier"),
    /** {@link Communicator#split} and {@link Communicator#dup}. */
    SPLIT("split"),
    /** {@link Communicator#shrink}. */
    SHRINK("shrink"),
    /** {@link Communicator#grow}. */
    GROW("grow"),
    /** The survivors' agreement after a failure (recovery policy automatic). */
    RECOVERY("recovery"),
    /** A remote procedure call ({@link Communicator#rpc()}). */
    RPC("rpc"),
    /** {@link Nexar#join()}: reading the join settings and joining the cluster. */
    JOIN("join"),
    /** Forming the cluster: the seed, the workers and their connections. */
    FORMATION("formation"),
    /** The handshake of a new connection between two processes. */
    HANDSHAKE("handshake"),
    /** Decoding bytes received from another process. */
    DECODE("decode"),
    /** Reading the configuration. */
    CONFIGURE("configure"),
    /** Closing a communicator or the cluster. */
    CLOSE("close"),
    /** A hang report's status question or answer ({@code Communicator.diagnostics()}). */
    DIAGNOSTICS("diagnostics"),
    /** {@code Communicator.group(int...)}: a communicator of listed ranks. */
    GROUP("group");

    private final String displayName;

    Operation(String displayName) {
        this.displayName = displayName;
    }

    /** {@return the name used in messages, for example {@code allReduce}} */
    public String displayName() {
        return displayName;
    }

    @Override
    public String toString() {
        return displayName;
    }
}
