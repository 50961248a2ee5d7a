package io.nexar.internal.collective;

import static org.assertj.core.api.Assertions.assertThat;

import io.nexar.DataType;
import io.nexar.Operation;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The engine's table of operations in flight against a HashMap, under random posts and ends. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ActiveOpsTest {
    private static final long SEED = System.nanoTime();
    private static final Fingerprint FP = new Fingerprint(Operation.BARRIER, DataType.U8, null, -1, 0);
    private static final MemorySegment[] NO_BUFFERS = {MemorySegment.NULL, MemorySegment.NULL, MemorySegment.NULL};

    private static OpState op(Group g, long seq) {
        return new OpState(g, new ReentrantLock()).init(seq, FP, null, DataType.U8, null, NO_BUFFERS);
    }

    @Test
    void findsExactlyTheOperationsHeldThroughGrowthAndRemovals() {
        System.out.println("ActiveOpsTest seed=" + SEED);
        var random = new Random(SEED);
        var groups = new Group[5];
        for (int i = 0; i < groups.length; i++) {
            groups[i] = new Group(i == 0 ? 0 : random.nextInt(), 0, new int[] {0, 1});
        }
        var table = new ActiveOps();
        Map<String, OpState> reference = new HashMap<>();
        List<OpState> held = new ArrayList<>();
        long[] nextSeq = new long[groups.length];
        for (int step = 0; step < 20_000; step++) {
            if (held.isEmpty() || random.nextInt(100) < 55 && held.size() < 300) {
                int g = random.nextInt(groups.length);
                OpState o = op(groups[g], nextSeq[g]++);
                table.put(o);
                held.add(o);
                reference.put(groups[g].id() + "/" + o.seq, o);
            } else {
                OpState o = held.remove(random.nextInt(held.size()));
                assertThat(table.remove(o)).as("seed %d step %d", SEED, step).isTrue();
                assertThat(table.remove(o)).isFalse();
                reference.remove(o.group.id() + "/" + o.seq);
            }
            assertThat(table.size()).isEqualTo(reference.size());
            if (step % 97 == 0) {
                for (int g = 0; g < groups.length; g++) {
                    for (long s = Math.max(0, nextSeq[g] - 400); s < nextSeq[g] + 2; s++) {
                        assertThat(table.get(groups[g].id(), s)).as("seed %d: comm %d seq %d", SEED, groups[g].id(), s)
                                .isSameAs(reference.get(groups[g].id() + "/" + s));
                    }
                }
                int seen = 0;
                for (int i = 0; i < table.capacity(); i++) {
                    if (table.at(i) != null) {
                        seen++;
                    }
                }
                assertThat(seen).isEqualTo(reference.size());
            }
        }
    }
}
