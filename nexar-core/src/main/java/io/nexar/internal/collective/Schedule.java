package io.nexar.internal.collective;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;

/**
 * What one rank does in one collective operation: rounds of steps over buffer slices (see {@link Step} for the order
 * inside a round). The round index travels with every message as its step number, so a message is identified by
 * (communicator, operation sequence, round, sender) — a structured tag that cannot collide with another operation's.
 * Hence every rank must number corresponding rounds alike; ranks that sit a round out keep it as an empty round.
 *
 * <pre>
 *   round 0:  [local steps] -> open receives -> sends -> wait for receives
 *   round 1:  ...
 * </pre>
 *
 * <p>Within a round a rank sends at most one message to each peer and receives at most one from each peer.
 *
 * @param rank this rank in the communicator
 * @param size the communicator's size
 * @param rounds the rounds, in order; immutable
 * @param scratchCount elements of scratch memory the schedule needs
 * @param ahead which receives may be applied before their round opens
 */
public record Schedule(int rank, int size, List<List<Step>> rounds, long scratchCount, ReceiveAhead ahead) {

    /** A builder for rank {@code rank} of a communicator of {@code size}. */
    public static Builder builder(int rank, int size) {
        return new Builder(rank, size);
    }

    /** Payload bytes this rank sends in all (frame headers not counted), with elements of {@code w} bytes. */
    public long bytesSent(int w) {
        long sent = 0;
        for (List<Step> round : rounds) {
            for (Step st : round) {
                if (st instanceof Step.Send x) {
                    sent += x.src().count() * w;
                }
            }
        }
        return sent;
    }

    /** Number of rounds. */
    public int roundCount() {
        return rounds.size();
    }

    /**
     * The receive step of round {@code round} from communicator rank {@code peer} if it may be applied while round
     * {@code open} is the open one (or none is, -1), although its own round is later; else -1.
     */
    int aheadStep(int round, int peer, int open) {
        List<Step> steps = rounds.get(round);
        for (int s = 0; s < steps.size(); s++) {
            Step step = steps.get(s);
            boolean fromPeer = step instanceof Step.RecvInto into ? into.peer() == peer
                    : step instanceof Step.RecvReduce reduce && reduce.peer() == peer;
            if (fromPeer) {
                return ahead.allowed(round, s, open) ? s : -1;
            }
        }
        return -1;
    }

    /** Builds a schedule round by round. Not thread-safe. */
    public static final class Builder {
        private final int rank;
        private final int size;
        private final List<Round> rounds = new ArrayList<>();
        private long scratch;

        private Builder(int rank, int size) {
            this.rank = rank;
            this.size = size;
        }

        /** Appends a new round. */
        public Round round() {
            var r = new Round();
            rounds.add(r);
            return r;
        }

        /** Round {@code index}, creating empty rounds up to it. */
        public Round at(int index) {
            while (rounds.size() <= index) {
                rounds.add(new Round());
            }
            return rounds.get(index);
        }

        /** Number of rounds so far. */
        public int rounds() {
            return rounds.size();
        }

        /** Requires at least {@code count} elements of scratch memory. */
        public Builder scratch(long count) {
            scratch = Math.max(scratch, count);
            return this;
        }

        /**
         * The schedule.
         *
         * @throws IllegalStateException if a round sends twice to, or receives twice from, one peer, or names a peer
         *         outside the communicator
         */
        public Schedule build() {
            var out = new ArrayList<List<Step>>(rounds.size());
            for (int i = 0; i < rounds.size(); i++) {
                var sendPeers = new HashSet<Integer>();
                var recvPeers = new HashSet<Integer>();
                for (Step s : rounds.get(i).steps) {
                    int peer = switch (s) {
                        case Step.Send x -> check(i, sendPeers, x.peer(), "sends twice to");
                        case Step.RecvInto x -> check(i, recvPeers, x.peer(), "receives twice from");
                        case Step.RecvReduce x -> check(i, recvPeers, x.peer(), "receives twice from");
                        default -> 0;
                    };
                    if (peer < 0 || peer >= size) {
                        throw new IllegalStateException("round " + i + " names peer " + peer + " outside [0, " + size
                                + ")");
                    }
                }
                out.add(List.copyOf(rounds.get(i).steps));
            }
            List<List<Step>> frozen = Collections.unmodifiableList(out);
            return new Schedule(rank, size, frozen, scratch, new ReceiveAhead(frozen));
        }

        private static int check(int round, HashSet<Integer> seen, int peer, String what) {
            if (!seen.add(peer)) {
                throw new IllegalStateException("round " + round + " " + what + " rank " + peer);
            }
            return peer;
        }
    }

    /** One round under construction; its methods chain. */
    public static final class Round {
        private final List<Step> steps = new ArrayList<>(2);

        private Round() {
        }

        /** Sends {@code src} to {@code peer}; empty slices are still sent (they carry the fingerprint). */
        public Round send(int peer, Slice src) {
            steps.add(new Step.Send(peer, src));
            return this;
        }

        /** Receives from {@code peer} into {@code dst}. */
        public Round recvInto(int peer, Slice dst) {
            steps.add(new Step.RecvInto(peer, dst));
            return this;
        }

        /** Receives from {@code peer} and reduces into {@code dst}: dst = dst op in. */
        public Round recvReduce(int peer, Slice dst) {
            steps.add(new Step.RecvReduce(peer, dst));
            return this;
        }

        /**
         * Receives from {@code peer} and reduces with {@code operand} into {@code dst}: dst = operand op in, without
         * first copying the operand into {@code dst}.
         */
        public Round recvReduce(int peer, Slice dst, Slice operand) {
            steps.add(new Step.RecvReduce(peer, dst, operand));
            return this;
        }

        /** Copies {@code src} to {@code dst} unless they are the same slice. */
        public Round copy(Slice src, Slice dst) {
            if (src.count() != dst.count()) {
                throw new IllegalArgumentException("copy of " + src.count() + " elements into " + dst.count());
            }
            if (!src.equals(dst) && src.count() > 0) {
                steps.add(new Step.Copy(src, dst));
            }
            return this;
        }

        /** dst = dst op src. */
        public Round reduce(Slice src, Slice dst) {
            if (src.count() != dst.count()) {
                throw new IllegalArgumentException("reduce of " + src.count() + " elements into " + dst.count());
            }
            if (src.count() > 0) {
                steps.add(new Step.Reduce(src, dst));
            }
            return this;
        }

        /** Divides {@code dst} by {@code divisor} (AVG). */
        public Round average(Slice dst, long divisor) {
            if (dst.count() > 0) {
                steps.add(new Step.Average(dst, divisor));
            }
            return this;
        }

        /** Fills {@code dst} with the operator's identity. */
        public Round identity(Slice dst) {
            if (dst.count() > 0) {
                steps.add(new Step.Identity(dst));
            }
            return this;
        }
    }
}
