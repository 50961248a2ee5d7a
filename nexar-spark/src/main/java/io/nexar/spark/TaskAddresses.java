package io.nexar.spark;

/** Reads the host out of a {@link org.apache.spark.BarrierTaskInfo#address()}. */
final class TaskAddresses {
    private TaskAddresses() {
    }

    /**
     * The host of a barrier task's address: {@code host:port}, {@code [v6]:port}, a bare host or a bare IPv6 address
     * (Spark has given each form in some version or mode).
     *
     * @throws IllegalStateException if the address is empty
     */
    static String host(String address) {
        String a = address == null ? "" : address.strip();
        if (a.isEmpty()) {
            throw new IllegalStateException("Spark gave rank 0's task no address (BarrierTaskInfo.address is empty)");
        }
        if (a.startsWith("[")) {
            int close = a.indexOf(']');
            if (close > 1) {
                return a.substring(1, close);
            }
            throw new IllegalStateException("Spark gave rank 0's task a malformed address: " + a);
        }
        int colon = a.indexOf(':');
        if (colon > 0 && colon == a.lastIndexOf(':')) {
            return a.substring(0, colon);
        }
        return a; // a bare host, or an IPv6 address without brackets or port
    }
}
