package io.nexar.internal.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.Topology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The simulator's report of hops per rank for sparse topologies up to 4096 ranks, checked against what the shapes
 * guarantee and against the table in docs/collectives.md (which it prints, to paste after a change).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TopologyReportTest {

    static final int[] SIZES = {8, 64, 512, 4096};
    static final Topology[] TOPOLOGIES = {Topology.kRegular(2), Topology.kRegular(4), Topology.kRegular(8),
            Topology.HYPERCUBE};

    @Test
    void shouldReportHopsUpTo4096RanksAsDocsCollectivesSays() throws IOException {
        List<String> rows = new ArrayList<>();
        for (Topology t : TOPOLOGIES) {
            for (int n : SIZES) {
                var report = TopologyReport.of(t, n);
                rows.add(report.markdownRow());
                if (t.kind() == Topology.Kind.HYPERCUBE) {
                    int log = Integer.numberOfTrailingZeros(n);
                    assertThat(report.connections()).isEqualTo(log);
                    assertThat(report.diameter()).isEqualTo(log);
                    assertThat(report.doublingHops()).as("recursive doubling's partners are neighbours").isEqualTo(1);
                    assertThat(report.ringHops()).isEqualTo(log); // n/2 - 1 -> n/2 flips every bit
                } else {
                    assertThat(report.connections()).isEqualTo(Math.min(t.degree(), n - 1));
                    assertThat(report.ringHops()).as("the ring is part of every k-regular graph").isEqualTo(1);
                }
                if (t.equals(Topology.kRegular(2))) {
                    assertThat(report.diameter()).isEqualTo(n / 2);
                }
                assertThat(report.meanHops()).isBetween(1.0, (double) report.diameter());
            }
        }
        String table = TopologyReport.HEADER + "\n" + String.join("\n", rows);
        System.out.println(table);
        Path docs = Path.of("..", "docs", "collectives.md");
        assertThat(Files.readString(docs)).as("docs/collectives.md has the table this test prints").contains(table);
    }

    @Test
    void shouldCountRelayLoadOfASmallRingByHand() {
        // ring of 4: each rank is the middle of the two 2-hop routes that pass it (a->a+2 via lower neighbour rule)
        var report = TopologyReport.of(Topology.kRegular(2), 4);
        assertThat(report.diameter()).isEqualTo(2);
        assertThat(report.meanHops()).isEqualTo(4.0 / 3);
        // routes of 2 hops: 0->2 via 1, 2->0 via 1, 1->3 via 0, 3->1 via 0: ranks 0 and 1 forward 2 each
        assertThat(report.relayLoad()).isEqualTo(2);
        assertThat(TopologyReport.of(Topology.FULL_MESH, 16).relayLoad()).isZero();
    }
}
