package io.nexar.internal.collective;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The local half of {@code group(ranks)}: the list checks and the bootstrap ids (no communication). */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class GroupsTest {

    @Test
    void bootstrapIdsDifferByParentListOrderAndCallAndAreNeverTheWorld() {
        Set<Integer> ids = new HashSet<>();
        int made = 0;
        for (int parent : new int[] {0, 1, 1834}) {
            for (int[] list : new int[][] {{0, 1}, {1, 0}, {0, 2}, {0, 1, 2}, {3}}) {
                for (int call = 0; call < 4; call++) {
                    int id = Groups.bootstrapId(parent, list, call);
                    assertThat(id).isPositive();
                    ids.add(id);
                    made++;
                }
            }
        }
        assertThat(ids).hasSize(made);
        assertThat(Groups.bootstrapId(7, new int[] {2, 5}, 3)).isEqualTo(Groups.bootstrapId(7, new int[] {2, 5}, 3));
    }

    @Test
    void theCallersPositionIsItsNewRank() {
        var parent = new Group(9, 2, new int[] {10, 11, 12, 13});
        assertThat(Groups.check(parent, new int[] {3, 2})).isEqualTo(1);
        assertThat(Groups.check(parent, new int[] {2})).isZero();
        assertThatThrownBy(() -> Groups.check(parent, new int[] {3, 4})).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("group on rank 2 (world 4, comm 9): rank 4 of group(3, 4) is out of range [0, 4)");
    }
}
