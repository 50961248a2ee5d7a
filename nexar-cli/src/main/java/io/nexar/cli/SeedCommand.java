package io.nexar.cli;

import io.nexar.transport.quic.PeerInfo;
import io.nexar.transport.quic.formation.SeedOptions;
import io.nexar.transport.quic.formation.SeedServer;
import io.nexar.transport.quic.security.ClusterCa;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code nexar seed}: owns the cluster CA, prints the join string on a line starting with {@code join: }, admits
 * {@code --world-size} workers, hands each its rank, certificate and the peer table, and exits once the cluster has
 * formed (the seed is not on the data path); with {@code --elastic} it keeps running, holding late workers that ask
 * to join the running cluster until its rank 0 polls at a {@code grow()}.
 */
@Command(name = "seed", mixinStandardHelpOptions = true,
        description = "Start a seed: print the join string, admit N workers, hand out ranks and certificates.")
final class SeedCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    LogOptions logOptions;

    @Option(names = {"-n", "--world-size"}, required = true, description = "number of workers to admit")
    int worldSize;

    @Option(names = "--bind", defaultValue = "0.0.0.0:0",
            description = "HOST:PORT to listen on ([v6]:port for IPv6; port 0 picks one; default ${DEFAULT-VALUE})")
    String bind;

    @Option(names = "--ca-cert", description = "PEM file of the operator's cluster CA certificate")
    Path caCert;

    @Option(names = "--ca-key", description = "PEM file of the operator's cluster CA private key")
    Path caKey;

    @Option(names = "--formation-timeout", defaultValue = "120s",
            description = "how long to wait for all workers (default ${DEFAULT-VALUE})")
    String formationTimeout;

    @Option(names = "--join-file", description = "also write the join string to this file, readable by its owner only"
            + " (mode 0600), for job scripts (`nexar worker --join-file F` reads it)")
    Path joinFile;

    @Option(names = "--elastic", description = "keep running after formation, so more workers can join the running "
            + "cluster (`nexar worker --elastic`, admitted at the program's grow()); stop it with SIGINT/SIGTERM")
    boolean elastic;

    SeedCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws Exception {
        if (worldSize < 1) {
            throw new UsageException("--world-size must be at least 1, got " + worldSize);
        }
        if ((caCert == null) != (caKey == null)) {
            throw new UsageException("--ca-cert and --ca-key go together");
        }
        Duration deadline = Flags.duration("--formation-timeout", formationTimeout);
        InetSocketAddress address = Flags.bindAddress("--bind", bind);
        ClusterCa ca = caCert == null ? ClusterCa.generate() : ClusterCa.load(caCert, caKey);
        var options = SeedOptions.builder(worldSize).bindAddress(address).ca(ca).formationDeadline(deadline)
                .certValidity(LaunchCommand.checkConfiguration(context).certValidity()).build();
        try (SeedServer seed = SeedServer.start(options)) {
            if (joinFile != null) {
                JoinFile.write(joinFile, seed.joinString());
            }
            context.out().println("join: " + seed.joinString());
            context.out().flush();
            List<PeerInfo> peers = seed.awaitFormed(deadline.plusSeconds(5));
            context.out().println("formed: " + peers.size() + " workers");
            for (PeerInfo p : peers) {
                context.out().println("  rank " + p.rank() + " member " + p.memberId() + " quic "
                        + Flags.address(p.quicAddress()));
            }
            context.out().flush();
            if (elastic) {
                context.out().println("elastic: waiting for workers to join the running cluster; stop with Ctrl-C");
                context.out().flush();
                var stop = new java.util.concurrent.CountDownLatch(1);
                Thread hook = Thread.ofPlatform().unstarted(() -> {
                    seed.close();
                    stop.countDown();
                });
                Runtime.getRuntime().addShutdownHook(hook);
                stop.await(); // until the JVM is asked to stop; the hook closes the seed
            }
            return ExitCodes.OK;
        }
    }
}
