package io.nexar;

/** The operation that an error or an event belongs to. Printed in camel case, as in the API. */
public enum Operation {
    SEND("send"),
    RECV("recv"),
    /** {@code probe} or {@code iprobe}: looking for a message without receiving it. */
    PROBE("probe"),
    ALL_REDUCE("allReduce"),
    BROADCAST("broadcast"),
    REDUCE("reduce"),
    ALL_GATHER("allGather"),
    REDUCE_SCATTER("reduceScatter"),
    ALL_TO_ALL("allToAll"),
    GATHER("gather"),
    SCATTER("scatter"),
    SCAN("scan"),
    EXCLUSIVE_SCAN("exclusiveScan"),
    BARRIER("barrier"),
    SPLIT("split"),
    SHRINK("shrink"),
    GROW("grow"),
    RECOVERY("recovery"),
    RPC("rpc"),
    JOIN("join"),
    FORMATION("formation"),
    HANDSHAKE("handshake"),
    DECODE("decode"),
    CONFIGURE("configure"),
    CLOSE("close"),
    /** A hang report's status question or answer ({@code Communicator.diagnostics()}). */
    DIAGNOSTICS("diagnostics");

    private final String displayName;

    Operation(String displayName) {
        this.displayName = displayName;
    }

    /** The name used in messages, for example {@code allReduce}. */
    public String displayName() {
        return displayName;
    }

    @Override
    public String toString() {
        return displayName;
    }
}
