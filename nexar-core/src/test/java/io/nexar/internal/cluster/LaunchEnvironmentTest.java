package io.nexar.internal.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nexar.InvalidConfigurationException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class LaunchEnvironmentTest {

    @Test
    void shouldReadNexarVariables() {
        var e = LaunchEnvironment.from(Map.of("NEXAR_JOIN", "nexar://h:1?token=t&ca=sha256:00", "NEXAR_RANK", "2",
                "NEXAR_WORLD_SIZE", "4", "NEXAR_SEED", "10.1.2.3:7000"));
        assertThat(e.joinString()).hasValue("nexar://h:1?token=t&ca=sha256:00");
        assertThat(e.rank()).hasValue(2);
        assertThat(e.worldSize()).hasValue(4);
        assertThat(e.seedAddress()).hasValue("10.1.2.3:7000");
        assertThat(e.sources()).containsExactly("join string from NEXAR_JOIN", "rank 2 from NEXAR_RANK",
                "world size 4 from NEXAR_WORLD_SIZE", "seed 10.1.2.3:7000 from NEXAR_SEED");
    }

    @Test
    void shouldReadTorchrunVariables() {
        var e = LaunchEnvironment.from(Map.of("RANK", "1", "WORLD_SIZE", "8", "LOCAL_RANK", "1",
                "MASTER_ADDR", "::1", "MASTER_PORT", "29500"));
        assertThat(e.rank()).hasValue(1);
        assertThat(e.worldSize()).hasValue(8);
        assertThat(e.seedAddress()).hasValue("[::1]:29500");
    }

    @Test
    void shouldBuildTheJoinStringFromTorchrunVariablesTokenAndFingerprint() {
        var e = LaunchEnvironment.from(Map.of("RANK", "1", "WORLD_SIZE", "2", "MASTER_ADDR", "10.0.0.5",
                "MASTER_PORT", "29500", "NEXAR_TOKEN", "tok", "NEXAR_CA_FINGERPRINT", "ab12"));
        assertThat(e.joinString()).hasValue("nexar://10.0.0.5:29500?token=tok&ca=sha256:ab12");
        assertThat(e.sources()).contains("join string from the seed address, the token and NEXAR_CA_FINGERPRINT");
        assertThat(e.hostsSeed()).isFalse();
        assertThat(LaunchEnvironment.from(Map.of("MASTER_ADDR", "h", "MASTER_PORT", "1")).joinString()).isEmpty();
        assertThatThrownBy(() -> LaunchEnvironment.from(Map.of("NEXAR_SEED", "h:1", "NEXAR_CA_FINGERPRINT", "ab")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("configure failed: NEXAR_TOKEN=\"\": expected a value: NEXAR_TOKEN (or NEXAR_TOKEN_FILE)"
                        + " and NEXAR_CA_FINGERPRINT go together (the seed prints both in its join string)");
    }

    @Test
    void shouldLaunchWithoutASeedWhenTheTokenComesWithoutAFingerprint() {
        Map<String, String> env = Map.of("MASTER_ADDR", "127.0.0.1", "MASTER_PORT", "29500", "WORLD_SIZE", "4",
                "RANK", "0", "NEXAR_TOKEN", "tok");
        var rank0 = LaunchEnvironment.from(env);
        assertThat(rank0.joinString()).hasValue("nexar://127.0.0.1:29500?token=tok&auth=token");
        assertThat(rank0.hostsSeed()).isTrue();
        assertThat(rank0.sources()).contains("token-only join string from the seed address and the token (no"
                + " NEXAR_CA_FINGERPRINT: rank 0 starts the seed, and this is rank 0)");
        var rank2 = LaunchEnvironment.from(with(env, "RANK", "2"));
        assertThat(rank2.joinString()).hasValue("nexar://127.0.0.1:29500?token=tok&auth=token");
        assertThat(rank2.hostsSeed()).isFalse();
    }

    @Test
    void shouldNeedRankAndWorldSizeWithoutASeed() {
        assertThatThrownBy(() -> LaunchEnvironment.from(Map.of("MASTER_ADDR", "h", "MASTER_PORT", "1",
                "WORLD_SIZE", "2", "NEXAR_TOKEN", "tok")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("configure failed: RANK=\"\": expected a value: without NEXAR_CA_FINGERPRINT rank 0 starts"
                        + " the seed, so every process needs its rank (RANK, or the Slurm or Open MPI equivalent)");
        assertThatThrownBy(() -> LaunchEnvironment.from(Map.of("MASTER_ADDR", "h", "MASTER_PORT", "1",
                "RANK", "1", "NEXAR_TOKEN", "tok")))
                .hasMessageContaining("WORLD_SIZE=\"\": expected a value: without NEXAR_CA_FINGERPRINT");
    }

    @Test
    void shouldReadTheTokenFromAFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("token");
        Files.writeString(file, "secret-from-file\n");
        var e = LaunchEnvironment.from(Map.of("NEXAR_SEED", "h:1", "NEXAR_TOKEN_FILE", file.toString(),
                "RANK", "1", "WORLD_SIZE", "2"));
        assertThat(e.joinString()).hasValue("nexar://h:1?token=secret-from-file&auth=token");
        var preferred = LaunchEnvironment.from(Map.of("NEXAR_SEED", "h:1", "NEXAR_TOKEN_FILE", file.toString(),
                "NEXAR_TOKEN", "direct", "NEXAR_CA_FINGERPRINT", "ab"));
        assertThat(preferred.joinString()).hasValue("nexar://h:1?token=direct&ca=sha256:ab");
        String missing = dir.resolve("absent").toString();
        assertThatThrownBy(() -> LaunchEnvironment.from(Map.of("NEXAR_SEED", "h:1", "NEXAR_TOKEN_FILE", missing,
                "RANK", "1", "WORLD_SIZE", "2")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageStartingWith("configure failed: NEXAR_TOKEN_FILE=\"" + missing + "\": expected a readable"
                        + " file holding the join token (NoSuchFileException");
        Files.writeString(file, " \n");
        assertThatThrownBy(() -> LaunchEnvironment.from(Map.of("NEXAR_SEED", "h:1", "NEXAR_TOKEN_FILE",
                file.toString(), "RANK", "1", "WORLD_SIZE", "2"))).hasMessageContaining("not an empty one");
    }

    @Test
    void shouldTakeTheSeedHostFromTheSlurmNodeListWithoutMasterAddr() {
        var e = LaunchEnvironment.from(Map.of("SLURM_PROCID", "3", "SLURM_NTASKS", "8", "MASTER_PORT", "29500",
                "SLURM_JOB_NODELIST", "gpu[07-09,12]", "SLURM_STEP_NODELIST", "gpu[08-09]", "NEXAR_TOKEN", "t"));
        assertThat(e.seedAddress()).hasValue("gpu08:29500");
        assertThat(e.sources()).contains("seed gpu08:29500 from the first host of SLURM_STEP_NODELIST and MASTER_PORT");
        assertThat(e.joinString()).hasValue("nexar://gpu08:29500?token=t&auth=token");
        var job = LaunchEnvironment.from(Map.of("MASTER_PORT", "29500", "SLURM_JOB_NODELIST", "gpu[07-09,12]"));
        assertThat(job.seedAddress()).hasValue("gpu07:29500");
        var master = LaunchEnvironment.from(Map.of("MASTER_ADDR", "head", "MASTER_PORT", "29500",
                "SLURM_JOB_NODELIST", "gpu[07-09,12]"));
        assertThat(master.seedAddress()).hasValue("head:29500");
        // without MASTER_PORT the node list names no seed (a job may use NEXAR_JOIN under Slurm)
        assertThat(LaunchEnvironment.from(Map.of("SLURM_JOB_NODELIST", "gpu[07-09]")).seedAddress()).isEmpty();
        assertThatThrownBy(() -> LaunchEnvironment.from(Map.of("MASTER_PORT", "1", "SLURM_JOB_NODELIST", "g[1-")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("SLURM_JOB_NODELIST=\"g[1-\": expected a Slurm host list such as node[01-04,07]");
    }

    @Test
    void shouldMapOpenMpiVariablesForALaunchWithoutASeed() {
        var e = LaunchEnvironment.from(Map.of("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "3",
                "MASTER_ADDR", "10.0.0.1", "MASTER_PORT", "7000", "NEXAR_TOKEN", "t"));
        assertThat(e.hostsSeed()).isTrue();
        assertThat(e.worldSize()).hasValue(3);
    }

    @Test
    void shouldTakeTheRankOfAKubernetesIndexedJob() {
        var e = LaunchEnvironment.from(Map.of("JOB_COMPLETION_INDEX", "2", "WORLD_SIZE", "4", "MASTER_ADDR",
                "job-0.job", "MASTER_PORT", "29500", "NEXAR_TOKEN", "t"));
        assertThat(e.rank()).hasValue(2);
        assertThat(e.sources()).contains("rank 2 from JOB_COMPLETION_INDEX");
        assertThat(e.joinString()).hasValue("nexar://job-0.job:29500?token=t&auth=token");
        assertThat(LaunchEnvironment.from(Map.of("RANK", "1", "JOB_COMPLETION_INDEX", "2")).rank()).hasValue(1);
    }

    private static Map<String, String> with(Map<String, String> env, String key, String value) {
        var m = new java.util.HashMap<>(env);
        m.put(key, value);
        return m;
    }

    @Test
    void shouldReadSlurmAndOpenMpiVariables() {
        var slurm = LaunchEnvironment.from(Map.of("SLURM_PROCID", "3", "SLURM_NTASKS", "4"));
        assertThat(slurm.rank()).hasValue(3);
        assertThat(slurm.sources()).containsExactly("rank 3 from SLURM_PROCID", "world size 4 from SLURM_NTASKS");
        var ompi = LaunchEnvironment.from(Map.of("OMPI_COMM_WORLD_RANK", "0", "OMPI_COMM_WORLD_SIZE", "2"));
        assertThat(ompi.rank()).hasValue(0);
        assertThat(ompi.worldSize()).hasValue(2);
    }

    @Test
    void shouldPreferNexarVariablesOverTheEcosystems() {
        var e = LaunchEnvironment.from(Map.of("NEXAR_RANK", "0", "RANK", "5", "SLURM_PROCID", "6", "WORLD_SIZE", "9"));
        assertThat(e.rank()).hasValue(0);
        assertThat(e.worldSize()).hasValue(9);
    }

    @Test
    void shouldBeEmptyWithoutVariables() {
        var e = LaunchEnvironment.from(Map.of());
        assertThat(e.joinString()).isEmpty();
        assertThat(e.rank()).isEmpty();
        assertThat(e.seedAddress()).isEmpty();
        assertThat(e.sources()).isEmpty();
    }

    @Test
    void shouldNameTheVariableOfABadValue() {
        assertThatThrownBy(() -> LaunchEnvironment.from(Map.of("SLURM_PROCID", "x")))
                .isInstanceOf(InvalidConfigurationException.class)
                .hasMessage("configure failed: SLURM_PROCID=\"x\": expected an integer >= 0");
        assertThatThrownBy(() -> LaunchEnvironment.from(Map.of("WORLD_SIZE", "0")))
                .hasMessage("configure failed: WORLD_SIZE=\"0\": expected an integer >= 1");
        assertThatThrownBy(() -> LaunchEnvironment.from(Map.of("RANK", "4", "WORLD_SIZE", "4")))
                .hasMessage("configure failed: RANK=\"4\": expected a rank in [0, 4) (world size from WORLD_SIZE)");
        assertThatThrownBy(() -> LaunchEnvironment.from(Map.of("MASTER_ADDR", "h")))
                .hasMessage("configure failed: MASTER_PORT=\"\": expected a port in [1, 65535] (MASTER_ADDR is set)");
        assertThatThrownBy(() -> LaunchEnvironment.from(Map.of("MASTER_ADDR", "h", "MASTER_PORT", "70000")))
                .hasMessage("configure failed: MASTER_PORT=\"70000\": expected a port in [1, 65535]");
        assertThatThrownBy(() -> LaunchEnvironment.from(Map.of("NEXAR_SEED", "::1:7000")))
                .hasMessage("configure failed: NEXAR_SEED=\"::1:7000\": expected host:port, with IPv6 hosts in"
                        + " brackets ([::1]:7000)");
        assertThatThrownBy(() -> LaunchEnvironment.from(Map.of("NEXAR_SEED", "h:0")))
                .hasMessage("configure failed: NEXAR_SEED=\"h:0\": expected host:port with a port in [1, 65535]");
    }
}
