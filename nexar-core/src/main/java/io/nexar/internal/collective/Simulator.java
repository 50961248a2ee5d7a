package io.nexar.internal.collective;

import io.nexar.DataType;
import io.nexar.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * Runs the schedules of all ranks of a communicator in one thread, without a network: delivers each send into the
 * receiver's inbox, applies it when the receiver's round is open, and counts what every rank sends. It checks what
 * the executor relies on: no deadlock (a pass over all ranks without progress while some are unfinished), every
 * message consumed, sizes that match, and no receive in a round that targets a slice the round sends from or
 * another receive writes.
 *
 * <pre>
 * per rank: round k: local steps -> sends (into inboxes, bytes counted) -> when every receive of k is in the
 *           inbox: apply them, go to round k+1
 * </pre>
 */
public final class Simulator {
    private Simulator() {
    }

    /**
     * What a run produced.
     *
     * @param payloadBytesSent bytes of payload each rank sent
     * @param messagesSent messages each rank sent (each carries one header on the wire)
     * @param rounds the largest number of rounds of any rank
     */
    public record Result(long[] payloadBytesSent, long[] messagesSent, int rounds) {
    }

    /** The schedules did not complete; the message says which ranks were stuck where. */
    public static final class DeadlockException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DeadlockException(String message) {
            super(message);
        }
    }

    /**
     * Runs {@code algorithm} for {@code spec} on {@code size} ranks.
     *
     * @param input rank's INPUT segment (may be the same object as its output for in-place calls)
     * @param output rank's OUTPUT segment
     */
    public static Result run(int size, Algorithm algorithm, OpSpec spec, IntFunction<MemorySegment> input,
                             IntFunction<MemorySegment> output) {
        DataType type = spec.type();
        ReduceOp combiner = spec.op() == null ? null : spec.combiner();
        int w = type.byteSize();
        var schedules = new Schedule[size];
        var buffers = new MemorySegment[size][];
        for (int r = 0; r < size; r++) {
            schedules[r] = algorithm.plan(r, size, spec);
            MemorySegment scratch = MemorySegment.ofArray(new byte[Math.toIntExact(schedules[r].scratchCount() * w)]);
            buffers[r] = new MemorySegment[] {input.apply(r), output.apply(r), scratch};
        }
        var inbox = new ArrayList<Map<Long, byte[]>>(size);
        for (int r = 0; r < size; r++) {
            inbox.add(new HashMap<>());
        }
        int[] round = new int[size];
        boolean[] opened = new boolean[size];
        long[] bytes = new long[size];
        long[] messages = new long[size];
        int unfinished = 0;
        for (int r = 0; r < size; r++) {
            if (schedules[r].roundCount() > 0) {
                unfinished++;
            }
        }
        boolean progress = true;
        while (unfinished > 0 && progress) {
            progress = false;
            for (int r = 0; r < size; r++) {
                Schedule s = schedules[r];
                while (round[r] < s.roundCount()) {
                    int k = round[r];
                    List<Step> steps = s.rounds().get(k);
                    if (!opened[r]) {
                        checkRound(r, k, steps);
                        local(buffers[r], steps, type, combiner, spec.op(), w);
                        for (Step st : steps) {
                            if (st instanceof Step.Send send) {
                                Slice src = send.src();
                                byte[] payload = buffers[r][src.buf().ordinal()]
                                        .asSlice(src.offset() * w, src.count() * w).toArray(ValueLayout.JAVA_BYTE);
                                if (inbox.get(send.peer()).put(key(k, r), payload) != null) {
                                    throw new IllegalStateException("rank " + r + " sent twice to rank " + send.peer()
                                            + " in round " + k);
                                }
                                bytes[r] += payload.length;
                                messages[r]++;
                            }
                        }
                        opened[r] = true;
                        progress = true;
                    }
                    boolean ready = true;
                    for (Step st : steps) {
                        int peer = peerOf(st);
                        if (peer >= 0 && !inbox.get(r).containsKey(key(k, peer))) {
                            ready = false;
                            break;
                        }
                    }
                    if (!ready) {
                        break;
                    }
                    for (Step st : steps) {
                        int peer = peerOf(st);
                        if (peer < 0) {
                            continue;
                        }
                        byte[] payload = inbox.get(r).remove(key(k, peer));
                        Slice dst = st instanceof Step.RecvInto ri ? ri.dst() : ((Step.RecvReduce) st).dst();
                        if (payload.length != dst.count() * w) {
                            throw new IllegalStateException("rank " + r + " round " + k + " expects " + dst.count() * w
                                    + " bytes from rank " + peer + ", which sent " + payload.length);
                        }
                        MemorySegment target = buffers[r][dst.buf().ordinal()];
                        if (st instanceof Step.RecvReduce) {
                            Kernels.reduce(target, dst.offset() * w, MemorySegment.ofArray(payload), 0, dst.count(),
                                    type, combiner);
                        } else {
                            MemorySegment.copy(MemorySegment.ofArray(payload), 0, target, dst.offset() * w,
                                    payload.length);
                        }
                    }
                    opened[r] = false;
                    round[r]++;
                    progress = true;
                    if (round[r] == s.roundCount()) {
                        unfinished--;
                    }
                }
            }
        }
        if (unfinished > 0) {
            var sb = new StringBuilder("deadlock: " + unfinished + " of " + size + " ranks cannot progress:");
            for (int r = 0, shown = 0; r < size && shown < 8; r++) {
                if (round[r] < schedules[r].roundCount()) {
                    sb.append(" rank ").append(r).append(" at round ").append(round[r]).append('/')
                            .append(schedules[r].roundCount()).append(';');
                    shown++;
                }
            }
            throw new DeadlockException(sb.toString());
        }
        for (int r = 0; r < size; r++) {
            if (!inbox.get(r).isEmpty()) {
                throw new IllegalStateException("rank " + r + " never consumed " + inbox.get(r).size() + " messages");
            }
        }
        int rounds = 0;
        for (Schedule s : schedules) {
            rounds = Math.max(rounds, s.roundCount());
        }
        return new Result(bytes, messages, rounds);
    }

    private static long key(int round, int src) {
        return ((long) round << 32) | src;
    }

    private static int peerOf(Step st) {
        return switch (st) {
            case Step.RecvInto r -> r.peer();
            case Step.RecvReduce r -> r.peer();
            default -> -1;
        };
    }

    /** A receive must not write what the round sends, nor what another receive writes. */
    private static void checkRound(int rank, int k, List<Step> steps) {
        var targets = new ArrayList<Slice>();
        for (Step st : steps) {
            switch (st) {
                case Step.RecvInto r -> targets.add(r.dst());
                case Step.RecvReduce r -> targets.add(r.dst());
                default -> {
                }
            }
        }
        if (targets.isEmpty()) {
            return;
        }
        targets.sort((a, b) -> a.buf() != b.buf() ? a.buf().compareTo(b.buf()) : Long.compare(a.offset(), b.offset()));
        for (int i = 1; i < targets.size(); i++) {
            if (targets.get(i - 1).overlaps(targets.get(i))) {
                throw new IllegalStateException("rank " + rank + " round " + k + ": receives overlap: "
                        + targets.get(i - 1) + " and " + targets.get(i));
            }
        }
        for (Step st : steps) {
            if (st instanceof Step.Send s) {
                for (Slice t : targets) {
                    if (t.overlaps(s.src())) {
                        throw new IllegalStateException("rank " + rank + " round " + k + ": receive into " + t
                                + " overlaps the send of " + s.src());
                    }
                }
            }
        }
    }

    private static void local(MemorySegment[] b, List<Step> steps, DataType type, ReduceOp combiner, ReduceOp op,
                              int w) {
        for (Step st : steps) {
            switch (st) {
                case Step.Copy c -> MemorySegment.copy(b[c.src().buf().ordinal()], c.src().offset() * w,
                        b[c.dst().buf().ordinal()], c.dst().offset() * w, c.src().count() * w);
                case Step.Reduce r -> Kernels.reduce(b[r.dst().buf().ordinal()], r.dst().offset() * w,
                        b[r.src().buf().ordinal()], r.src().offset() * w, r.src().count(), type, combiner);
                case Step.Average a -> Kernels.finishAverage(b[a.dst().buf().ordinal()], a.dst().offset() * w,
                        a.dst().count(), type, a.divisor());
                case Step.Identity i -> Kernels.fillIdentity(b[i.dst().buf().ordinal()], i.dst().offset() * w,
                        i.dst().count(), type, op);
                default -> {
                }
            }
        }
    }
}
