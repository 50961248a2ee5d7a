package io.nexar.internal.comm;

import io.nexar.ClusterFormationException;
import io.nexar.DataType;
import io.nexar.ErrorContext;
import io.nexar.NexarConfig;
import io.nexar.NexarException;
import io.nexar.ReduceOp;
import io.nexar.internal.cluster.Admissions;
import io.nexar.internal.collective.CollectiveEngine;
import io.nexar.internal.collective.Collectives;
import io.nexar.internal.collective.Group;
import io.nexar.internal.collective.Splits;
import io.nexar.internal.transport.Newcomer;
import io.nexar.internal.transport.Transport;
import io.nexar.internal.util.Deadline;
import io.nexar.internal.util.LogContext;
import io.nexar.internal.util.Segments;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The members' side of one {@link io.nexar.Communicator#grow} on the world communicator, as a short schedule over
 * the current world:
 *
 * <ol>
 *   <li>rank 0 asks the {@link Admissions} (the seed) for the waiting workers, at most up to setting
 *       {@code world.max.size}; the seed tells them their world ranks and the {@link Admissions.Ticket};</li>
 *   <li>rank 0 broadcasts the offer (world rank and transport descriptor of each newcomer);</li>
 *   <li>every member connects to every newcomer ({@link Transport#admit}; on a sparse topology, to the newcomers
 *       that are its neighbours in the grown world's graph);</li>
 *   <li>an allreduce (min) of "connected" decides: all members admit them, or none does and every member excludes
 *       them, so the world never differs between members; if all admit them, each member's transport switches to
 *       the grown world ({@link Transport#admitted}).</li>
 * </ol>
 *
 * The caller then adopts the grown group and runs a barrier on it, which the newcomers' join also runs.
 */
final class GrowRound {
    /** Salt of the grown world's id, distinct from recovery's, so a growth and a recovery never share an id. */
    static final int GROW_SALT = 0x6e0;
    private static final Logger LOG = LoggerFactory.getLogger(GrowRound.class);

    private GrowRound() {
    }

    /** The id of the world communicator that {@code old} grows into at {@code generation}. */
    static int grownId(int old, int generation) {
        return Splits.deriveId(old, -generation, GROW_SALT, 0);
    }

    /**
     * Runs the round on {@code coll} (the current world, group {@code g}, at {@code generation}).
     *
     * @return the grown world group, or null if no worker was waiting
     * @throws ClusterFormationException if some member could not connect to the newcomers (then no one admitted them)
     */
    static Group run(Transport transport, CollectiveEngine engine, Collectives coll, int generation,
                     Admissions admissions, NexarConfig config, ErrorContext context) {
        Group g = coll.group();
        int nextGeneration = generation + 1;
        int id = grownId(g.id(), nextGeneration);
        byte[] offer = g.rank() == 0 ? poll(admissions, new Admissions.Ticket(id, nextGeneration, g.worldRanks()),
                config.worldMaxSize() - g.size(), config, transport.rank()) : null;
        List<Newcomer> newcomers = decode(share(coll, offer));
        if (newcomers.isEmpty()) {
            return null;
        }
        int[] added = newcomers.stream().mapToInt(Newcomer::worldRank).toArray();
        String problem = null;
        try {
            transport.admit(newcomers, g.worldRanks(), Deadline.after(config.collectiveTimeout()));
        } catch (NexarException | UnsupportedOperationException e) {
            problem = "could not connect to them: " + e.getMessage();
            try (var mdc = LogContext.scope(g.rank(), g.size(), g.id())) {
                LOG.warn("grow: rank {}: world ranks {}: {}", g.rank(), Arrays.toString(added), problem);
            }
        }
        if (problem == null && engine.isIdUsed(id)) { // a 32-bit id collision: checked by all before any adopts it
            problem = "the grown communicator's id " + id + " is already used here";
        }
        if (!allSucceeded(coll, problem == null)) {
            for (int w : added) {
                transport.exclude(w, "was not admitted: not every member could connect to it");
            }
            throw new ClusterFormationException(context, "failed: world ranks " + Arrays.toString(added)
                    + " were not admitted: " + (problem != null ? "on this rank, " + problem
                    : "another member could not connect to them") + "; the world communicator is unchanged");
        }
        engine.reserveId(id);
        var grown = new Group(id, g.rank(), grownRanks(g.worldRanks(), added));
        transport.admitted(grown.worldRanks()); // a sparse topology switches to the grown world's graph here
        try (var mdc = LogContext.scope(grown.rank(), grown.size(), id)) {
            LOG.info("grow: communicator {} grown into {} with world ranks {} ({} ranks, generation {})", g.id(), id,
                    Arrays.toString(added), grown.size(), nextGeneration);
        }
        return grown;
    }

    /** The grown world's ranks: the members in their order, then the newcomers (members keep their ranks). */
    static int[] grownRanks(int[] members, int[] newcomers) {
        int[] ranks = Arrays.copyOf(members, members.length + newcomers.length);
        System.arraycopy(newcomers, 0, ranks, members.length, newcomers.length);
        return ranks;
    }

    /** Rank 0: the seed's offer, encoded; an empty offer if nobody waits or the seed cannot be asked. */
    private static byte[] poll(Admissions admissions, Admissions.Ticket ticket, int room, NexarConfig config,
                               int self) {
        if (admissions == null || room <= 0) {
            return encode(List.of());
        }
        try {
            return encode(admissions.admit(ticket, room, Deadline.after(config.collectiveTimeout())));
        } catch (NexarException e) {
            LOG.warn("grow: world rank {} admits nobody: {}", self, e.getMessage());
            return encode(List.of());
        }
    }

    /** Broadcasts rank 0's offer: its length, then its bytes. */
    private static byte[] share(Collectives coll, byte[] offer) {
        // shared memory: transport threads write what they receive into it
        MemorySegment length = Arena.ofAuto().allocate(ValueLayout.JAVA_LONG);
        if (offer != null) {
            length.set(ValueLayout.JAVA_LONG, 0, offer.length);
        }
        coll.broadcast(length, DataType.I64, 1, 0);
        long n = length.get(ValueLayout.JAVA_LONG, 0);
        if (n < 4 || n > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("grow offer of " + n + " bytes");
        }
        MemorySegment bytes = Arena.ofAuto().allocate(n);
        if (offer != null) {
            Segments.copy(MemorySegment.ofArray(offer), 0, bytes, 0, n);
        }
        coll.broadcast(bytes, DataType.U8, n, 0);
        return bytes.toArray(ValueLayout.JAVA_BYTE);
    }

    private static boolean allSucceeded(Collectives coll, boolean ok) {
        MemorySegment in = Arena.ofAuto().allocate(ValueLayout.JAVA_INT);
        MemorySegment out = Arena.ofAuto().allocate(ValueLayout.JAVA_INT);
        in.set(ValueLayout.JAVA_INT, 0, ok ? 1 : 0);
        coll.allReduce(in, out, DataType.I32, 1, ReduceOp.MIN);
        return out.get(ValueLayout.JAVA_INT, 0) == 1;
    }

    /** count i32 | count x (worldRank i32 | length i32 | descriptor), little-endian. */
    static byte[] encode(List<Newcomer> newcomers) {
        int size = 4;
        for (Newcomer n : newcomers) {
            size += 8 + n.descriptor().length;
        }
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(newcomers.size());
        for (Newcomer n : newcomers) {
            byte[] d = n.descriptor();
            b.putInt(n.worldRank()).putInt(d.length).put(d);
        }
        return b.array();
    }

    static List<Newcomer> decode(byte[] offer) {
        ByteBuffer b = ByteBuffer.wrap(offer).order(ByteOrder.LITTLE_ENDIAN);
        int count = b.getInt();
        if (count < 0 || count > b.remaining() / 8) {
            throw new IllegalStateException("grow offer names " + count + " newcomers in " + offer.length + " bytes");
        }
        var out = new ArrayList<Newcomer>(count);
        for (int i = 0; i < count; i++) {
            int rank = b.getInt();
            int length = b.getInt();
            if (length < 0 || length > b.remaining()) {
                throw new IllegalStateException("grow offer entry " + i + " has a descriptor of " + length + " bytes");
            }
            byte[] d = new byte[length];
            b.get(d);
            out.add(new Newcomer(rank, d));
        }
        return out;
    }
}
