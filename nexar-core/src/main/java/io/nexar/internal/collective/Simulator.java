package io.nexar.internal.collective;

import io.nexar.DataType;
import io.nexar.ReduceOp;
import io.nexar.internal.util.Segments;
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
 * <p>A message is applied as early as the engine may apply it: at once if its receive may be applied ahead of its
 * round ({@link ReceiveAhead}, not for in-place calls), else when its round is open. So every run also checks that
 * receiving ahead never changes a result.
 *
 * <pre>
 * per rank: round k: local steps -> sends (into inboxes, bytes counted; applied at once where allowed ahead) ->
 *           when every receive of k is in the inbox or applied: apply the rest, go to round k+1
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
     * @param appliedAhead messages applied before their receiver's round opened ({@link ReceiveAhead})
     */
    public record Result(long[] payloadBytesSent, long[] messagesSent, int rounds, long appliedAhead) {
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
        var applied = new ArrayList<java.util.Set<Long>>(size);
        boolean[] mayAhead = new boolean[size];
        for (int r = 0; r < size; r++) {
            inbox.add(new HashMap<>());
            applied.add(new java.util.HashSet<>());
            mayAhead[r] = buffers[r][0].asOverlappingSlice(buffers[r][1]).isEmpty()
                    || !schedules[r].ahead().readsInput();
        }
        int[] round = new int[size];
        boolean[] opened = new boolean[size];
        long ahead = 0;
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
                        // as the engine: a message that arrives ahead of its round is applied at once if allowed
                        for (Step st : steps) {
                            if (st instanceof Step.Send send && mayAhead[send.peer()]) {
                                int p = send.peer();
                                ahead += applyAhead(schedules[p], opened[p] ? round[p] : round[p] - 1, key(k, r),
                                        inbox.get(p), applied.get(p), buffers[p], type, combiner);
                            }
                        }
                    }
                    boolean ready = true;
                    for (Step st : steps) {
                        int peer = peerOf(st);
                        if (peer >= 0 && !inbox.get(r).containsKey(key(k, peer))
                                && !applied.get(r).contains(key(k, peer))) {
                            ready = false;
                            break;
                        }
                    }
                    if (!ready) {
                        break;
                    }
                    for (Step st : steps) {
                        int peer = peerOf(st);
                        if (peer < 0 || applied.get(r).remove(key(k, peer))) {
                            continue;
                        }
                        applyReceive(st, inbox.get(r).remove(key(k, peer)), buffers[r], type, combiner, r, k);
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
            if (!applied.get(r).isEmpty()) {
                throw new IllegalStateException("rank " + r + " applied ahead " + applied.get(r).size()
                        + " messages of rounds it never ran");
            }
            if (!inbox.get(r).isEmpty()) {
                throw new IllegalStateException("rank " + r + " never consumed " + inbox.get(r).size() + " messages");
            }
        }
        int rounds = 0;
        for (Schedule s : schedules) {
            rounds = Math.max(rounds, s.roundCount());
        }
        return new Result(bytes, messages, rounds, ahead);
    }

    /**
     * Applies message {@code key} of {@code inbox} if its receive may be applied ahead while round {@code open} is
     * open ({@link Schedule#aheadStep}), and marks it in {@code applied}. Returns 1 if it did, else 0.
     */
    private static int applyAhead(Schedule s, int open, long key, Map<Long, byte[]> inbox, java.util.Set<Long> applied,
                                  MemorySegment[] buffers, DataType type, ReduceOp combiner) {
        int k = (int) (key >>> 32);
        int peer = (int) key;
        int step = k > open ? s.aheadStep(k, peer, open) : -1;
        if (step < 0) {
            return 0;
        }
        applyReceive(s.rounds().get(k).get(step), inbox.remove(key), buffers, type, combiner, s.rank(), k);
        applied.add(key);
        return 1;
    }

    /** Copies or reduces {@code payload} into receive step {@code st}'s target. */
    private static void applyReceive(Step st, byte[] payload, MemorySegment[] buffers, DataType type,
                                     ReduceOp combiner, int rank, int k) {
        int w = type.byteSize();
        Slice dst = ReceiveAhead.target(st);
        if (payload.length != dst.count() * w) {
            throw new IllegalStateException("rank " + rank + " round " + k + " expects " + dst.count() * w
                    + " bytes from rank " + peerOf(st) + ", which sent " + payload.length);
        }
        MemorySegment target = buffers[dst.buf().ordinal()];
        if (st instanceof Step.RecvReduce r) {
            Slice o = r.operand();
            Kernels.reduce(buffers[o.buf().ordinal()], o.offset() * w, MemorySegment.ofArray(payload), 0, target,
                    dst.offset() * w, dst.count(), type, combiner);
        } else {
            Segments.copy(MemorySegment.ofArray(payload), 0, target, dst.offset() * w, payload.length);
        }
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
                case Step.Copy c -> Segments.copy(b[c.src().buf().ordinal()], c.src().offset() * w,
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
