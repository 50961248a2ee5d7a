package io.nexar.examples;

import io.nexar.testkit.LocalCluster;
import java.util.Arrays;

/**
 * Point-to-point: rank 0 sends a float array to rank 1, which doubles it and sends it back.
 *
 * <p>Run: {@code ./mvnw -q -pl nexar-examples -am package -DskipTests} then
 * {@code java -cp "nexar-examples/target/classes:nexar-testkit/target/classes:nexar-core/target/classes"
 * io.nexar.examples.SendRecv}.
 */
public final class SendRecv {
    private SendRecv() {
    }

    public static void main(String[] args) {
        try (var cluster = LocalCluster.start(2)) {
            cluster.run(c -> {
                if (c.rank() == 0) {
                    c.send(1, 0, new float[] {1, 2, 3, 4});
                    var back = new float[4];
                    c.recv(1, 0, back);
                    System.out.println("rank 0 got back " + Arrays.toString(back));
                } else {
                    var data = new float[4];
                    c.recv(0, 0, data);
                    for (int i = 0; i < data.length; i++) {
                        data[i] *= 2;
                    }
                    c.send(0, 0, data);
                }
                return null;
            });
        }
    }
}
