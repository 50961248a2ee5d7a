package io.nexar.internal.collective;

import java.util.List;

/**
 * For each receive of a {@link Schedule}, the first open round from which its chunks may be written into their
 * target although the receive's own round is not open yet: a chunk that arrives early then goes straight into the
 * caller's memory instead of being copied into the early store and copied again when its round opens (issue 13, "no
 * staging of expected data").
 *
 * <p>A receive of round {@code j} into slice {@code D} may be applied while round {@code o < j} is open when no step
 * of rounds {@code o .. j-1} (sends read, receives and local steps write or read) and no local step of round
 * {@code j} itself (they run before the round's receives) touches {@code D}; before any round is open ({@code o = -1})
 * that means rounds {@code 0 .. j-1}. Rounds before the open one are complete and their sends have taken their data,
 * so nothing can still read or write {@code D} before the receive would have. Each element thus sees the same writes
 * in the same order as without receiving ahead: results, reduction order and deterministic mode are unchanged. The
 * {@link Simulator} applies every message as early as this allows, so its runs check it for every algorithm.
 *
 * <p>Cost: each check walks the rounds between the open one and the chunk's, which is one or two when chunks arrive
 * just ahead (the usual case), and at most {@link #MAX_ROUNDS_AHEAD}: a chunk further ahead is held as before.
 * Nothing is computed for chunks that arrive in their round.
 *
 * <p>Slices of {@link Buf#INPUT} and {@link Buf#OUTPUT} are compared by offset, so an operation whose input and output
 * overlap (in place) receives ahead only if its schedule never reads its input ({@link #readsInput}, {@link OpState}).
 */
final class ReceiveAhead {
    /** Chunks more rounds ahead of the open one than this are held, not checked (bounds the walk). */
    static final int MAX_ROUNDS_AHEAD = 64;

    private final List<List<Step>> rounds;
    /** 0 not known yet, 1 some step reads {@link Buf#INPUT}, 2 none does (racing threads compute the same). */
    private int readsInput;

    ReceiveAhead(List<List<Step>> rounds) {
        this.rounds = rounds;
    }

    /**
     * True if receive step {@code s} of round {@code j} may be applied while round {@code open} is the open one
     * ({@code -1}: none yet); false for {@code open >= j}, which is not ahead, and for chunks more than
     * {@link #MAX_ROUNDS_AHEAD} rounds ahead.
     */
    boolean allowed(int j, int s, int open) {
        Slice dst = open >= j || j - Math.max(open, 0) > MAX_ROUNDS_AHEAD ? null : target(rounds.get(j).get(s));
        if (dst == null) {
            return false;
        }
        Slice operand = rounds.get(j).get(s) instanceof Step.RecvReduce r && !r.accumulates() ? r.operand() : null;
        return untouched(j, open, dst) && (operand == null || untouched(j, open, operand));
    }

    /**
     * True if no local step of round {@code j} and no step of rounds {@code open .. j-1} touches {@code d}: a receive
     * of round {@code j} may write (or, for a reducing receive's operand, read) it now.
     */
    private boolean untouched(int j, int open, Slice d) {
        List<Step> round = rounds.get(j);
        for (int k = 0; k < round.size(); k++) { // indexed: asked per early chunk, no iterator
            Step step = round.get(k);
            if (isLocal(step) && touches(step, d)) {
                return false;
            }
        }
        for (int i = j - 1; i >= Math.max(open, 0); i--) {
            if (anyTouches(rounds.get(i), d)) {
                return false;
            }
        }
        return true;
    }

    /**
     * True if some step reads {@link Buf#INPUT}: then an in-place call (input and output the same memory) must not
     * receive ahead, as a receive into the output could overwrite input that a later send reads. A broadcast's
     * schedule works on its output alone, so it receives ahead in place too.
     */
    boolean readsInput() {
        if (readsInput == 0) {
            var all = new Slice(Buf.INPUT, 0, Long.MAX_VALUE / 2);
            boolean reads = false;
            for (List<Step> round : rounds) {
                reads |= anyTouches(round, all);
            }
            readsInput = reads ? 1 : 2;
        }
        return readsInput == 1;
    }

    private static boolean anyTouches(List<Step> steps, Slice dst) {
        for (int k = 0; k < steps.size(); k++) { // indexed: no iterator
            if (touches(steps.get(k), dst)) {
                return true;
            }
        }
        return false;
    }

    /** The slice a receive writes, or null for other steps. */
    static Slice target(Step s) {
        return switch (s) {
            case Step.RecvInto r -> r.dst();
            case Step.RecvReduce r -> r.dst();
            default -> null;
        };
    }

    private static boolean isLocal(Step s) {
        return !(s instanceof Step.Send || s instanceof Step.RecvInto || s instanceof Step.RecvReduce);
    }

    /** True if step {@code s} reads or writes any element of {@code d}. */
    private static boolean touches(Step s, Slice d) {
        return switch (s) {
            case Step.Send x -> x.src().overlaps(d);
            case Step.RecvInto x -> x.dst().overlaps(d);
            case Step.RecvReduce x -> x.dst().overlaps(d) || x.operand().overlaps(d);
            case Step.Copy x -> x.src().overlaps(d) || x.dst().overlaps(d);
            case Step.Reduce x -> x.src().overlaps(d) || x.dst().overlaps(d);
            case Step.Average x -> x.dst().overlaps(d);
            case Step.Identity x -> x.dst().overlaps(d);
        };
    }
}
