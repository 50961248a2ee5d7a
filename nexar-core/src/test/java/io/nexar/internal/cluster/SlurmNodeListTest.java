package io.nexar.internal.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class SlurmNodeListTest {

    @Test
    void shouldExpandRangesKeepingTheirPadding() {
        assertThat(SlurmNodeList.expand("node[01-04,07]")).containsExactly("node01", "node02", "node03", "node04",
                "node07");
        assertThat(SlurmNodeList.expand("node[8-11]")).containsExactly("node8", "node9", "node10", "node11");
        assertThat(SlurmNodeList.expand("node[098-101]")).containsExactly("node098", "node099", "node100",
                "node101");
    }

    @Test
    void shouldExpandListsAndSeveralBracketGroups() {
        assertThat(SlurmNodeList.expand("login1,gpu[2-3],cpu-a")).containsExactly("login1", "gpu2", "gpu3", "cpu-a");
        assertThat(SlurmNodeList.expand("rack[1-2]-n[8-9]")).containsExactly("rack1-n8", "rack1-n9", "rack2-n8",
                "rack2-n9");
        assertThat(SlurmNodeList.expand("n[3]x")).containsExactly("n3x");
    }

    @Test
    void shouldGiveTheFirstHostWithoutExpandingTheRest() {
        assertThat(SlurmNodeList.first("node[01-04,07]")).isEqualTo("node01");
        assertThat(SlurmNodeList.first("node[7,1-3]")).isEqualTo("node7");
        assertThat(SlurmNodeList.first(" c1 ")).isEqualTo("c1");
        assertThat(SlurmNodeList.first("a[0-99999999999999]")).isEqualTo("a0");
        assertThat(SlurmNodeList.first("rack[2-3]-n[08-09],x")).isEqualTo("rack2-n08");
    }

    @Test
    void shouldRefuseMalformedListsNamingTheProblem() {
        assertThatThrownBy(() -> SlurmNodeList.first("")).hasMessage("host list is empty");
        assertThatThrownBy(() -> SlurmNodeList.first("node[01-04")).hasMessageContaining("unclosed '['");
        assertThatThrownBy(() -> SlurmNodeList.first("node01-04]")).hasMessageContaining("unopened ']'");
        assertThatThrownBy(() -> SlurmNodeList.first("n[[1]]")).hasMessageContaining("nests brackets");
        assertThatThrownBy(() -> SlurmNodeList.first("a,,b")).hasMessageContaining("empty host name");
        assertThatThrownBy(() -> SlurmNodeList.first("n[a-b]")).hasMessageContaining("is not N or N-M");
        assertThatThrownBy(() -> SlurmNodeList.first("n[4-2]")).hasMessageContaining("ends before it starts");
        assertThatThrownBy(() -> SlurmNodeList.expand("n[0-2000000]")).hasMessageContaining("more than");
    }
}
