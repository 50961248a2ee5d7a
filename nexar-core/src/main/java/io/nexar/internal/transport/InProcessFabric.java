package io.nexar.internal.transport;

import io.nexar.NexarConfig;
import io.nexar.internal.collective.CollectiveEngine;
import io.nexar.internal.p2p.Mailbox;
import io.nexar.internal.util.Deadline;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The "network" of an in-process cluster: {@code worldSize} {@link InProcessTransport} endpoints that deliver
 * frames to each other by calling the receiver's handler on the sender's thread. Every frame still goes through
 * the real codec (encode, length check, decode), so the in-process cluster exercises the wire protocol too.
 */
public final class InProcessFabric {
    private static final AtomicLong INCARNATIONS = new AtomicLong(1);
    private final NexarConfig config;
    private final List<InProcessTransport> endpoints;
    /** Links between running members asked for by {@link #link}, as (asking rank, peer) pairs. */
    private final java.util.Set<Long> linkRequests = new java.util.HashSet<>();

    private InProcessFabric(int worldSize, NexarConfig config) {
        this.config = config;
        var list = new ArrayList<InProcessTransport>(worldSize);
        for (int rank = 0; rank < worldSize; rank++) {
            var router = new InboundRouter(new Mailbox(config.unexpectedMaxBytes()),
                    new CollectiveEngine(config.unexpectedMaxBytes()));
            list.add(new InProcessTransport(this, rank, worldSize, router, INCARNATIONS.getAndIncrement()));
        }
        this.endpoints = List.copyOf(list);
    }

    /**
     * Creates {@code worldSize} connected endpoints.
     *
     * @throws IllegalArgumentException if worldSize is less than 1
     */
    public static InProcessFabric create(int worldSize, NexarConfig config) {
        if (worldSize < 1) {
            throw new IllegalArgumentException("worldSize " + worldSize + " is not in [1, " + Integer.MAX_VALUE + "]");
        }
        return new InProcessFabric(worldSize, config);
    }

    /** The endpoint of {@code rank}. */
    public InProcessTransport endpoint(int rank) {
        return endpoints.get(rank);
    }

    /** The number of endpoints. */
    public int worldSize() {
        return endpoints.size();
    }

    NexarConfig config() {
        return config;
    }

    /**
     * {@link InProcessTransport#linkMembers}: every pair of endpoints can already reach each other, so a link between
     * running members is the agreement of both ends: each asks for it, and it is up once both did (as a network link
     * is up once the dialling end connected and the other end accepted the identity it expected).
     *
     * @return the peers whose link is not up: they went down, or the deadline passed first
     */
    synchronized int[] link(int self, int[] peers, Deadline deadline) {
        for (int p : peers) {
            linkRequests.add(pair(self, p));
        }
        notifyAll();
        while (true) {
            int[] missing = java.util.Arrays.stream(peers)
                    .filter(p -> !linkRequests.contains(pair(p, self)) && !endpoint(p).isDown()).toArray();
            long left = deadline.remainingNanos();
            if (missing.length == 0 || left <= 0) {
                return java.util.Arrays.stream(peers)
                        .filter(p -> !linkRequests.contains(pair(p, self)) || endpoint(p).isDown()).toArray();
            }
            try {
                java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return missing;
            }
        }
    }

    /** An endpoint went down: endpoints waiting in {@link #link} for it stop waiting. */
    synchronized void endpointDown() {
        notifyAll();
    }

    private static long pair(int from, int to) {
        return ((long) from << 32) | (to & 0xffffffffL);
    }
}
