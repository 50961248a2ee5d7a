package io.nexar.internal.transport;

/**
 * Lets a thread that waits for inbound messages read them itself: the receive sides ({@code Mailbox},
 * {@code CollectiveEngine}) poll the transport for a bounded window before they sleep, so that a message goes from
 * the socket to the waiting receive on one thread, with no wake-up of a transport thread and no hand-off (each costs
 * 25-35 us on the project's machines; docs/performance.md). A transport whose own threads deliver every message (the
 * in-process transport) uses {@link #NONE}; the network transport without TCP lanes returns 0 from
 * {@link #pollNanos}.
 *
 * <p>Contract: {@link #poll} never blocks and may be called by any number of threads at once (a connection that
 * another thread reads at the moment is skipped); a thread that polled calls {@link #handBack} before it sleeps, so
 * that the transport's own threads read the lane again at once. Liveness never depends on anyone polling: without
 * polls the transport's threads read every lane, at most a short hand-back interval after the last poll.
 */
public interface Progress {

    /** A thread that waits for one peer reads every peer's connection at every this many polls. */
    int FULL_POLL_EVERY = 8;

    /** Nothing to poll: waiting threads sleep at once and the transport's threads deliver. */
    Progress NONE = new Progress() {
        @Override
        public boolean poll(Lane lane) {
            return false;
        }

        @Override
        public void handBack(Lane lane) {
        }

        @Override
        public long pollNanos() {
            return 0;
        }
    };

    /**
     * Reads and delivers what has arrived on {@code lane} from every peer, without waiting.
     *
     * @return true if at least one message was delivered
     */
    boolean poll(Lane lane);

    /**
     * Reads and delivers what has arrived on {@code lane} from world rank {@code worldPeer} only, without waiting; the
     * lane's other connections stay this thread's (their transport threads keep off them as after {@link #poll}) but
     * are not read. A thread that waits for one sender saves a read system call per other peer and poll this way.
     * The default reads every peer.
     *
     * @return true if at least one message was delivered
     */
    default boolean poll(Lane lane, int worldPeer) {
        return poll(lane);
    }

    /**
     * As {@link #poll(Lane, int)} ({@code worldPeer} -1: {@link #poll(Lane)}), for a thread that read the clock a moment
     * ago: {@code nowNanos}, its {@link System#nanoTime()}, stands in for the transport's own reading (on the project's
     * machine a clock read costs 25 ns, and it was 3% of a small collective's CPU read three times per poll).
     *
     * @return true if at least one message was delivered
     */
    default boolean poll(Lane lane, int worldPeer, long nowNanos) {
        return worldPeer < 0 ? poll(lane) : poll(lane, worldPeer);
    }

    /** The calling thread polled {@code lane} and is going to sleep: the transport's threads read it from now on. */
    void handBack(Lane lane);

    /** How long a waiting thread polls (yielding its core between polls) before it sleeps; 0 means never poll. */
    long pollNanos();

    /**
     * Polls {@code lane} until {@code done} holds, the poll window ends or {@code deadlineNanos} passes, yielding the
     * core between polls (a peer process may need it more: ranks often outnumber cores); hands the lane back unless
     * done.
     *
     * @return true if {@code done} held
     * @throws InterruptedException if the thread is interrupted (the lane is handed back first)
     */
    default boolean pollUntil(Lane lane, java.util.function.BooleanSupplier done, long deadlineNanos)
            throws InterruptedException {
        return pollUntil(lane, done, deadlineNanos, -1);
    }

    /**
     * As {@link #pollUntil(Lane, java.util.function.BooleanSupplier, long)}, for a thread that waits for world rank
     * {@code worldPeer} (or -1: any rank): each poll reads that peer's connection, and every
     * {@link #FULL_POLL_EVERY}th poll reads every peer (messages of later steps, and any that a mistaken hint leaves).
     *
     * @return true if {@code done} held
     * @throws InterruptedException if the thread is interrupted (the lane is handed back first)
     */
    default boolean pollUntil(Lane lane, java.util.function.BooleanSupplier done, long deadlineNanos, int worldPeer)
            throws InterruptedException {
        long window = pollNanos();
        if (window <= 0) {
            return done.getAsBoolean();
        }
        long now = System.nanoTime();
        // A virtual thread polls once, then hands the lane back and sleeps: its Thread.yield() gives the carrier to
        // other virtual threads, not the core to other processes, and unmounts and remounts it at every poll (a
        // stack chunk allocated each time). Measured, 4 ranks on 2 cores: polling for the window cost 8x the time
        // and 16x the allocation of one read (docs/performance.md, "Calls from virtual threads").
        long end = Thread.currentThread().isVirtual() ? now
                : deadlineNanos - now < window ? deadlineNanos : now + window;
        // one clock read per poll, right after the yield: the poll stamps the lane with it and the window is checked
        // against it (a window may run over by one poll's few microseconds)
        for (int polls = 0; ; polls++) {
            if (done.getAsBoolean()) {
                return true;
            }
            poll(lane, worldPeer < 0 || polls % FULL_POLL_EVERY == FULL_POLL_EVERY - 1 ? -1 : worldPeer, now);
            if (done.getAsBoolean()) {
                return true;
            }
            if (Thread.interrupted()) {
                handBack(lane);
                throw new InterruptedException();
            }
            if (now - end >= 0) {
                handBack(lane);
                return false;
            }
            Thread.yield();
            now = System.nanoTime();
        }
    }
}
