package io.nexar.internal.collective;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.DataType;
import io.nexar.Operation;
import io.nexar.ReduceOp;
import io.nexar.Topology;
import io.nexar.internal.topology.NeighbourGraph;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How the full-mesh schedules map onto the sparse topologies (issue 15): every send of every rank's real schedule
 * ({@link Algorithm#plan}, as the executor and the simulator run it) weighed by the hops of its shortest route. The
 * table goes into docs/collectives.md 2c (printed here, checked against the file).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ScheduleHopsTest {
    private static final int[] SIZES = {8, 64, 512};
    private static final Topology[] TOPOLOGIES = {Topology.kRegular(2), Topology.kRegular(4), Topology.HYPERCUBE};

    /** The most hops of one message, and the links each payload byte crosses on average (messages for a barrier). */
    record Hops(int most, double perByte) {
    }

    static Hops hops(Algorithm algorithm, OpSpec spec, NeighbourGraph graph) {
        int n = graph.worldSize();
        int most = 0;
        double crossings = 0;
        double sent = 0;
        for (int r = 0; r < n; r++) {
            for (List<Step> round : algorithm.plan(r, n, spec).rounds()) {
                for (Step step : round) {
                    if (step instanceof Step.Send send) {
                        int h = graph.distance(r, send.peer());
                        double weight = spec.count() == 0 ? 1 : send.src().count();
                        most = Math.max(most, h);
                        crossings += weight * h;
                        sent += weight;
                    }
                }
            }
        }
        return new Hops(most, sent == 0 ? 0 : crossings / sent);
    }

    private static OpSpec spec(Operation op, long count) {
        return new OpSpec(op, DataType.I64, op == Operation.ALL_REDUCE ? ReduceOp.SUM : null, count,
                op == Operation.BROADCAST ? 0 : -1, null, null, false);
    }

    @Test
    void shouldMapTheRingOntoKRegularAndTheDoublingSchedulesOntoTheHypercube() throws IOException {
        record Case(String name, Algorithm algorithm, Operation op) {
        }
        List<Case> cases = List.of(new Case("ring allReduce", RingAllReduce.plain(), Operation.ALL_REDUCE),
                new Case("ring allGather", new RingAllGather(), Operation.ALL_GATHER),
                new Case("halving-doubling allReduce", new HalvingDoublingAllReduce(), Operation.ALL_REDUCE),
                new Case("recursive-doubling allReduce", new RecursiveDoublingAllReduce(), Operation.ALL_REDUCE),
                new Case("binomial broadcast", new BinomialBroadcast(), Operation.BROADCAST),
                new Case("dissemination barrier", new DisseminationBarrier(), Operation.BARRIER));
        List<String> rows = new ArrayList<>();
        for (Case c : cases) {
            for (Topology t : TOPOLOGIES) {
                var cells = new StringBuilder("| " + c.name() + " | " + t + " |");
                for (int n : SIZES) {
                    var graph = NeighbourGraph.of(t, n);
                    Hops h = hops(c.algorithm(), spec(c.op(), c.op() == Operation.BARRIER ? 0 : 4L * n), graph);
                    cells.append(String.format(Locale.ROOT, " %d / %.2f |", h.most(), h.perByte()));
                    if (c.name().startsWith("ring") && t.kind() == Topology.Kind.K_REGULAR) {
                        assertThat(h.most()).as("%s on %s, %d ranks: neighbours only", c.name(), t, n).isEqualTo(1);
                    }
                    if (t.kind() == Topology.Kind.HYPERCUBE && (c.name().contains("doubling")
                            || c.name().startsWith("binomial"))) {
                        assertThat(h.most()).as("%s on a hypercube of %d: neighbours only", c.name(), n).isEqualTo(1);
                    }
                    assertThat(h.most()).isLessThanOrEqualTo(graph.worldSize() / 2);
                }
                rows.add(cells.toString());
            }
        }
        String table = "| Schedule | Topology | 8 ranks | 64 ranks | 512 ranks |\n|---|---|---:|---:|---:|\n"
                + String.join("\n", rows);
        System.out.println(table);
        Path docs = Path.of("..", "docs", "collectives.md");
        assertThat(Files.readString(docs)).as("docs/collectives.md has the table this test prints").contains(table);
    }
}
