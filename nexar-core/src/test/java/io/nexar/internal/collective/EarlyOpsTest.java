package io.nexar.internal.collective;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.internal.protocol.Message;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The early store's table of operations' chunk lists against a HashMap, under random holds, takes and drops. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EarlyOpsTest {
    private static final long SEED = System.nanoTime();

    private static List<StoredChunk> chunks(int comm, long seq) {
        var c = new Message.Collective(comm, seq, 0, 0, 0, 0, -1, 0, 0, 0, MemorySegment.ofArray(new byte[0]));
        List<StoredChunk> l = new ArrayList<>();
        l.add(new StoredChunk().fill(1, c));
        return l;
    }

    @Test
    void findsExactlyTheOperationsHeldThroughGrowthRemovalsAndDroppedCommunicators() {
        System.out.println("EarlyOpsTest seed=" + SEED);
        var random = new Random(SEED);
        int[] comms = {0, random.nextInt(), random.nextInt(), random.nextInt()};
        var table = new EarlyOps();
        Map<String, List<StoredChunk>> reference = new HashMap<>();
        long[] nextSeq = new long[comms.length];
        for (int step = 0; step < 20_000; step++) {
            int g = random.nextInt(comms.length);
            int roll = random.nextInt(100);
            if (roll < 50 && reference.size() < 300) {
                long seq = nextSeq[g]++;
                List<StoredChunk> l = chunks(comms[g], seq);
                table.put(l);
                reference.put(comms[g] + "/" + seq, l);
            } else if (roll < 99) {
                long seq = Math.max(0, nextSeq[g] - 1 - random.nextInt(400));
                List<StoredChunk> expected = reference.remove(comms[g] + "/" + seq);
                assertThat(table.remove(comms[g], seq)).as("seed %d step %d", SEED, step).isSameAs(expected);
            } else {
                List<List<StoredChunk>> dropped = table.removeCommunicator(comms[g]);
                int before = reference.size();
                reference.keySet().removeIf(k -> k.startsWith(comms[g] + "/"));
                assertThat(dropped).as("seed %d step %d", SEED, step).hasSize(before - reference.size());
            }
            assertThat(table.isEmpty()).isEqualTo(reference.isEmpty());
            if (step % 97 == 0) {
                for (int c = 0; c < comms.length; c++) {
                    for (long s = Math.max(0, nextSeq[c] - 400); s < nextSeq[c] + 2; s++) {
                        assertThat(table.get(comms[c], s)).as("seed %d: comm %d seq %d", SEED, comms[c], s)
                                .isSameAs(reference.get(comms[c] + "/" + s));
                    }
                }
            }
        }
        table.clear();
        assertThat(table.isEmpty()).isTrue();
    }
}
