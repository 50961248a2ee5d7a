package io.nexar.internal.cluster;

import io.nexar.internal.protocol.AgreeKind;
import io.nexar.internal.protocol.Message;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * One member's side of the agreement on which members of a communicator have failed: every surviving member decides
 * the same set, even when more members fail while it runs (docs/failure-model.md, "Agreement"). Pure logic, no
 * threads and no clock: the owner feeds it suspicions and messages and sends what {@link #drainOutbox()} returns.
 * Not thread-safe (one owner, the process's membership executor).
 *
 * <p>The algorithm is a single-decree Paxos whose ballots are failed sets, with a fixed coordinator order (the live
 * member of lowest communicator rank) and unanimity among the live members instead of a majority of acceptors:
 * <ol>
 *   <li>Every member sends its failed set S to every live member whenever S grows (PROPOSE), with the ballot and
 *       value it accepted last. Receiving a set merges it, so one member's suspicion becomes everyone's.</li>
 *   <li>The coordinator waits until every live member's latest PROPOSE equals its own S. It then asks them to accept
 *       (ACCEPT) under ballot S the value accepted under the highest ballot any of them reported, or S itself if none
 *       accepted anything yet. A member accepts only a ballot equal to its current S from its current coordinator,
 *       and answers ACK.</li>
 *   <li>With an ACK from every live member the coordinator decides and sends DECIDE; every member that learns the
 *       decision relays it once, and answers any later PROPOSE or ACCEPT with it.</li>
 * </ol>
 * A decided value can exclude fewer members than are known to be dead by then (the coordinator died during step 3,
 * say): the next recovery removes them. A member that finds itself in a received set was excluded by the others.
 * Recovery needs a strict majority of the members alive: a minority (one side of a partition) never decides.
 */
public final class Agreement {
    /** Where the agreement stands on this member. */
    public enum Outcome {
        /** Still running. */
        RUNNING,
        /** {@link #decided()} holds the failed set every survivor adopts. */
        DECIDED,
        /** Another member listed this one as failed: it is no longer a member. */
        EXCLUDED,
        /** Half of the members or more are failed: no side may continue. */
        NO_QUORUM
    }

    /** A message for {@code to} (a world rank). */
    public record Send(int to, Message.Agree message) {
    }

    private final int communicator;
    private final int generation;
    private final int self;
    private final int[] members;
    private final Set<Integer> memberSet = new HashSet<>();
    private final TreeSet<Integer> failed = new TreeSet<>();
    private final Map<Integer, int[]> proposals = new HashMap<>();
    private final Map<Integer, int[][]> reportedAccepted = new HashMap<>();
    private final Set<Integer> acks = new HashSet<>();
    private final List<Send> outbox = new ArrayList<>();
    private int[] acceptedBallot;
    private int[] acceptedValue;
    private int[] issuedBallot;
    private int[] decided;
    private Outcome outcome = Outcome.RUNNING;
    private String excludedBy;

    /**
     * @param communicator the communicator id (every member uses the same)
     * @param generation recoveries before this one in the communicator's lineage
     * @param self this member's world rank
     * @param members the members' world ranks in communicator-rank order (the coordinator order)
     */
    public Agreement(int communicator, int generation, int self, int[] members) {
        this.communicator = communicator;
        this.generation = generation;
        this.self = self;
        this.members = members.clone();
        for (int m : members) {
            memberSet.add(m);
        }
        if (!memberSet.contains(self)) {
            throw new IllegalArgumentException("rank " + self + " is not a member of " + Arrays.toString(members));
        }
    }

    /** Sends this member's first proposal; call once, after the initial {@link #suspect} calls. */
    public void start() {
        proposeToAll();
        evaluate();
    }

    /** {@code worldRank} is known to have failed (detected here, or reported). */
    public void suspect(int worldRank) {
        if (!memberSet.contains(worldRank) || worldRank == self || failed.contains(worldRank)) {
            return;
        }
        failed.add(worldRank);
        if (outcome == Outcome.RUNNING) {
            proposeToAll();
            evaluate();
        }
    }

    /** A message from member {@code from} (world rank). */
    public void onMessage(int from, Message.Agree m) {
        if (outcome == Outcome.DECIDED) {
            if (m.kind() != AgreeKind.DECIDE && !failed.contains(from)) {
                send(from, AgreeKind.DECIDE, new int[0], null, decided);
            }
            return;
        }
        if (outcome != Outcome.RUNNING || !memberSet.contains(from) || failed.contains(from)) {
            return;
        }
        switch (m.kind()) {
            case PROPOSE -> {
                if (excludes(m.failed(), from)) {
                    return;
                }
                int[] before = proposals.get(from);
                if (before == null || before.length < m.failed().length) { // sets only grow
                    proposals.put(from, m.failed());
                }
                if (m.acceptedBallot() != null) {
                    reportedAccepted.put(from, new int[][] {m.acceptedBallot(), m.value()});
                }
                boolean grew = false;
                for (int r : m.failed()) {
                    if (memberSet.contains(r) && failed.add(r)) {
                        grew = true;
                    }
                }
                if (grew) {
                    proposeToAll();
                }
            }
            case ACCEPT -> {
                if (excludes(m.value(), from)) {
                    return;
                }
                if (from == coordinator() && Arrays.equals(m.failed(), failedArray())) {
                    acceptedBallot = m.failed();
                    acceptedValue = m.value();
                    send(from, AgreeKind.ACK, acceptedBallot, null, new int[0]);
                }
            }
            case ACK -> {
                if (issuedBallot != null && Arrays.equals(m.failed(), issuedBallot)) {
                    acks.add(from);
                }
            }
            case DECIDE -> {
                if (excludes(m.value(), from)) {
                    return;
                }
                decide(m.value());
                return;
            }
        }
        evaluate();
    }

    /** Where the agreement stands. */
    public Outcome outcome() {
        return outcome;
    }

    /** The decided failed set (world ranks, sorted), or null. */
    public int[] decided() {
        return decided == null ? null : decided.clone();
    }

    /** The failed set known here (world ranks, sorted). */
    public int[] failed() {
        return failedArray();
    }

    /** For {@link Outcome#EXCLUDED}: who listed this member ("rank 3"); else null. */
    public String excludedBy() {
        return excludedBy;
    }

    /** The communicator id. */
    public int communicator() {
        return communicator;
    }

    /** The generation. */
    public int generation() {
        return generation;
    }

    /** The members' world ranks in communicator-rank order. */
    public int[] members() {
        return members.clone();
    }

    /** The live members this one still waits for (for timeout messages): who has not proposed the current set. */
    public List<Integer> waitingFor() {
        var waiting = new ArrayList<Integer>();
        int[] now = failedArray();
        for (int m : members) {
            if (m != self && !failed.contains(m)) {
                boolean done = issuedBallot != null ? acks.contains(m) : Arrays.equals(proposals.get(m), now);
                if (!done) {
                    waiting.add(m);
                }
            }
        }
        return waiting;
    }

    /** The messages to send since the last call, in order. */
    public List<Send> drainOutbox() {
        var out = List.copyOf(outbox);
        outbox.clear();
        return out;
    }

    // ------------------------------------------------------------------------------------------------ internals

    private void evaluate() {
        if (outcome != Outcome.RUNNING) {
            return;
        }
        int live = members.length - failed.size();
        if (2 * live <= members.length) {
            outcome = Outcome.NO_QUORUM;
            return;
        }
        if (coordinator() != self) {
            return;
        }
        int[] now = failedArray();
        if (issuedBallot != null && !Arrays.equals(issuedBallot, now)) {
            issuedBallot = null; // someone else failed meanwhile: ask again under the larger ballot
            acks.clear();
        }
        if (issuedBallot == null) {
            for (int m : members) {
                if (m != self && !failed.contains(m) && !Arrays.equals(proposals.get(m), now)) {
                    return;
                }
            }
            int[] value = highestAcceptedValue(now);
            issuedBallot = now;
            acceptedBallot = now;
            acceptedValue = value;
            acks.clear();
            acks.add(self);
            for (int m : members) {
                if (m != self && !failed.contains(m)) {
                    send(m, AgreeKind.ACCEPT, now, null, value);
                }
            }
        }
        for (int m : members) {
            if (!failed.contains(m) && !acks.contains(m)) {
                return;
            }
        }
        decide(acceptedValue);
    }

    /** The value of the highest ballot accepted by a live member (this one included), or {@code fallback}. */
    private int[] highestAcceptedValue(int[] fallback) {
        int[] bestBallot = acceptedBallot;
        int[] bestValue = acceptedValue;
        for (var e : reportedAccepted.entrySet()) {
            if (failed.contains(e.getKey())) {
                continue;
            }
            int[][] bv = e.getValue();
            if (bestBallot == null || compareBallots(bv[0], bestBallot) > 0) {
                bestBallot = bv[0];
                bestValue = bv[1];
            }
        }
        return bestValue == null ? fallback : bestValue;
    }

    /** Ballots are ordered by size, then lexicographically (sets of issued ballots are nested, see the class doc). */
    static int compareBallots(int[] a, int[] b) {
        if (a.length != b.length) {
            return Integer.compare(a.length, b.length);
        }
        return Arrays.compare(a, b);
    }

    /** Decides; tells every other member, the excluded ones too (best effort: a live one learns it is out). */
    private void decide(int[] value) {
        decided = value.clone();
        outcome = Outcome.DECIDED;
        for (int m : members) {
            if (m != self) {
                send(m, AgreeKind.DECIDE, new int[0], null, decided);
            }
        }
    }

    /** True (and the outcome EXCLUDED) if {@code set} lists this member. */
    private boolean excludes(int[] set, int from) {
        if (Arrays.binarySearch(set, self) >= 0) {
            outcome = Outcome.EXCLUDED;
            excludedBy = "rank " + from;
            return true;
        }
        return false;
    }

    private int coordinator() {
        for (int m : members) {
            if (!failed.contains(m)) {
                return m;
            }
        }
        return -1;
    }

    private void proposeToAll() {
        int[] now = failedArray();
        for (int m : members) {
            if (m != self && !failed.contains(m)) {
                send(m, AgreeKind.PROPOSE, now, acceptedBallot, acceptedValue == null ? new int[0] : acceptedValue);
            }
        }
    }

    private void send(int to, AgreeKind kind, int[] set, int[] ballot, int[] value) {
        outbox.add(new Send(to, new Message.Agree(communicator, generation, kind, set, ballot, value)));
    }

    private int[] failedArray() {
        return failed.stream().mapToInt(Integer::intValue).toArray();
    }
}
