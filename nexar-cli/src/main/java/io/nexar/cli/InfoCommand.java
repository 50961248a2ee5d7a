package io.nexar.cli;

import io.nexar.NexarConfig;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code nexar info}: version, JDK, transports, and the effective configuration with each value's source. */
@Command(name = "info", mixinStandardHelpOptions = true,
        description = "Print the version, the JDK, the transports and the effective configuration.")
final class InfoCommand implements Callable<Integer> {
    private final CliContext context;

    InfoCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() {
        var out = context.out();
        NexarConfig config = NexarConfig.builder().environment(context.env())
                .systemProperties(context.systemProperties()).build();
        out.println("nexar " + VersionProvider.version());
        out.println("jdk: " + Runtime.version() + " (" + System.getProperty("java.vendor") + ", "
                + System.getProperty("java.home") + ")");
        out.println("os: " + System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        out.println("transports:");
        out.println("  in-process: available (LocalCluster, tests)");
        var network = io.nexar.Nexar.transports();
        if (network.isEmpty()) {
            out.println("  no network transport on the class path");
        }
        network.forEach(p -> out.println("  " + p.name() + ": " + (p.isAvailable() ? "available" : "unavailable")
                + " (" + p.detail() + ")"));
        out.println("configuration:");
        config.describe().lines().forEach(l -> out.println("  " + l));
        return ExitCodes.OK;
    }
}
