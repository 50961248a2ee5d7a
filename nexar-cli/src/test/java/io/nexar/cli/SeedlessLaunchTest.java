package io.nexar.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 17: processes started independently, as torchrun, srun or a Kubernetes Job starts them, with only
 * MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK and NEXAR_TOKEN in their environment and {@code nexar run}: no seed
 * process and no CA fingerprint. Rank 0 starts the seed in its own JVM; every rank enrols with it, authenticating it
 * by its proof of the token. A rank with another token is refused with a message naming the token, and the seed side
 * logs the refusal.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SeedlessLaunchTest {
    private static final String TOKEN = "c2VlZGxlc3MtbGF1bmNoLXRlc3QtdG9rZW4tMTIzNDU2"; // 264 bits, base64url

    @Test
    void shouldFormFromTheLauncherEnvironmentAloneAndAllReduce() throws Exception {
        int port = freePort();
        int world = 4;
        var ranks = new ArrayList<CliProcess>();
        try {
            for (int r = 0; r < world; r++) {
                ranks.add(new CliProcess(env(port, world, r, TOKEN), (c, line) -> { },
                        "run", "io.nexar.examples.AllReduce"));
            }
            for (int r = 0; r < world; r++) {
                assertThat(ranks.get(r).await()).as("exit code of rank " + r).isZero();
                assertThat(ranks.get(r).first("^rank " + r + ": \\[6\\.0, 6\\.0, 6\\.0, 6\\.0, 6\\.0, 6\\.0, 6\\.0,"
                        + " 6\\.0\\]$", 0)).isNotNull();
            }
        } finally {
            ranks.forEach(CliProcess::destroy);
        }
    }

    @Test
    void shouldRefuseARankWithAnotherTokenNamingTheToken() throws Exception {
        int port = freePort();
        var refusedAtSeed = new CompletableFuture<String>();
        CliProcess rank0 = null;
        CliProcess rank1 = null;
        try {
            rank0 = new CliProcess(env(port, 2, 0, TOKEN), (c, line) -> {
                if (line.contains("seed refused the join from")) {
                    refusedAtSeed.complete(line);
                }
            }, "run", "io.nexar.examples.AllReduce");
            rank1 = new CliProcess(env(port, 2, 1, "d3JvbmctdG9rZW4tZm9yLXRoZS1zZWVkbGVzcy10ZXN0"), (c, line) -> { },
                    "run", "io.nexar.examples.AllReduce");
            assertThat(rank1.await()).as("exit code of the rank with the wrong token").isEqualTo(ExitCodes.FAILED);
            assertThat(rank1.first("refused the join: join token proof does not verify.*\\(BAD_TOKEN\\): this"
                    + " worker's join token \\(NEXAR_TOKEN\\) differs from the seed's", 0)).isNotNull();
            assertThat(refusedAtSeed.get(30, TimeUnit.SECONDS)).contains("join token proof does not verify")
                    .contains("BAD_TOKEN");
            assertThat(rank1.any(TOKEN) || rank0.any(TOKEN) || rank1.any("d3JvbmctdG9r")).as("no token in the logs")
                    .isFalse();
        } finally {
            // rank 0 would wait for its second rank until the formation timeout; end it by its pid
            if (rank0 != null) {
                rank0.destroy();
            }
            if (rank1 != null) {
                rank1.destroy();
            }
        }
    }

    private static Map<String, String> env(int port, int world, int rank, String token) {
        return Map.of("MASTER_ADDR", "127.0.0.1", "MASTER_PORT", String.valueOf(port), "WORLD_SIZE",
                String.valueOf(world), "RANK", String.valueOf(rank), "NEXAR_TOKEN", token);
    }

    private static int freePort() throws IOException {
        try (var s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
