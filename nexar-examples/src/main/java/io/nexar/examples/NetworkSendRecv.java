package io.nexar.examples;

import io.nexar.Communicator;
import io.nexar.Nexar;
import java.util.Arrays;

/**
 * Point-to-point over the network: rank 0 sends to rank 1, which doubles the values and sends them back.
 * Run: {@code ./nexar launch -n 2 io.nexar.examples.NetworkSendRecv}.
 */
public final class NetworkSendRecv {
    private NetworkSendRecv() {
    }

    public static void main(String[] args) {
        try (Communicator world = Nexar.join()) {
            if (world.rank() == 0) {
                world.send(1, 0, new float[] {1, 2, 3, 4});
                var back = new float[4];
                world.recv(1, 0, back);
                System.out.println("rank 0 got back " + Arrays.toString(back));
                if (back[3] != 8f) {
                    throw new IllegalStateException("unexpected reply " + Arrays.toString(back));
                }
            } else if (world.rank() == 1) {
                var data = new float[4];
                world.recv(0, 0, data);
                for (int i = 0; i < data.length; i++) {
                    data[i] *= 2;
                }
                world.send(0, 0, data);
            }
            world.barrier();
        }
    }
}
