package io.nexar.examples;

import io.nexar.Communicator;
import io.nexar.testkit.LocalCluster;

/** The README's quick start: each rank passes a float[] to the next rank of a ring. Keep the two in sync. */
public final class QuickStart {
    private QuickStart() {
    }

    public static void main(String[] args) {
        try (var cluster = LocalCluster.start(4)) {           // 4 ranks in this JVM
            var sums = cluster.onEachRank((Communicator c) -> {
                int next = (c.rank() + 1) % c.worldSize();
                int prev = (c.rank() + c.worldSize() - 1) % c.worldSize();
                float[] mine = {c.rank(), 1f};
                float[] got = new float[2];
                c.send(next, 0, mine);                      // returns once the data is copied out
                c.recv(prev, 0, got);                       // matched by (communicator, source, tag)
                return got[0] + got[1];
            });
            System.out.println(sums);                       // {0=4.0, 1=1.0, 2=2.0, 3=3.0}
        }
    }
}
