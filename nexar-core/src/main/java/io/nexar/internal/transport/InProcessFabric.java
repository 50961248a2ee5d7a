package io.nexar.internal.transport;

import io.nexar.NexarConfig;
import io.nexar.internal.collective.CollectiveEngine;
import io.nexar.internal.p2p.Mailbox;
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
}
