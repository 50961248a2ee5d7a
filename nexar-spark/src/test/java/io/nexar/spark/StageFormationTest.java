package io.nexar.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.ClusterFormationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Rank 0's allGather entry and the task addresses, without Spark. */
@Timeout(10)
class StageFormationTest {

    @Test
    void shouldReadRankZerosSeedEntry() {
        var seed = StageFormation.parse("nexar-spark/1 seed 10.0.0.5 41234 c2VjcmV0LXRva2VuLW9mLTE2Ynl0ZXM", 3);
        assertThat(seed.host()).isEqualTo("10.0.0.5");
        assertThat(seed.port()).isEqualTo(41234);
        assertThat(seed.token()).isEqualTo("c2VjcmV0LXRva2VuLW9mLTE2Ynl0ZXM");
        assertThat(seed.toString()).doesNotContain("c2Vj");
    }

    @Test
    void shouldFailWithRankZerosErrorInsteadOfWaitingForASeed() {
        assertThatThrownBy(() -> StageFormation.parse("nexar-spark/1 error seed cannot listen on 10.0.0.5:0", 2))
                .isInstanceOf(ClusterFormationException.class)
                .hasMessage("join on rank 2 failed in a Spark barrier task: rank 0 could not start the seed: seed"
                        + " cannot listen on 10.0.0.5:0");
    }

    @Test
    void shouldRefuseAnEntryOfAnotherVersionWithoutShowingAToken() {
        assertThatThrownBy(() -> StageFormation.parse("nexar-spark/1 seed host-only SECRETTOKEN", 1))
                .isInstanceOf(ClusterFormationException.class)
                .hasMessageContaining("is not 'nexar-spark/1 seed HOST PORT TOKEN'")
                .hasMessageNotContaining("SECRETTOKEN");
        assertThatThrownBy(() -> StageFormation.parse("nexar-spark/2 seed h 1 t", 1))
                .hasMessageEndingWith(": nexar-spark/2 ... (rest not shown: it may hold a token)");
    }

    @Test
    void shouldTakeTheHostOutOfEveryFormOfTaskAddress() {
        assertThat(TaskAddresses.host("10.0.0.7:35012")).isEqualTo("10.0.0.7");
        assertThat(TaskAddresses.host("worker-3.example")).isEqualTo("worker-3.example");
        assertThat(TaskAddresses.host("[fd00::7]:35012")).isEqualTo("fd00::7");
        assertThat(TaskAddresses.host("fd00::7")).isEqualTo("fd00::7");
        assertThatThrownBy(() -> TaskAddresses.host(" ")).isInstanceOf(IllegalStateException.class);
    }
}
