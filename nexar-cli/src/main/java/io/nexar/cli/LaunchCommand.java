package io.nexar.cli;

import io.nexar.InvalidConfigurationException;
import io.nexar.NexarConfig;
import io.nexar.transport.quic.formation.SeedOptions;
import io.nexar.transport.quic.formation.SeedServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code nexar launch -n N MAIN_CLASS [ARGS...]}: starts a seed in this process and N worker JVMs on this machine
 * (loopback), hands each the join string and its rank through the environment ({@code NEXAR_JOIN},
 * {@code NEXAR_RANK}, {@code NEXAR_WORLD_SIZE}), prints {@code rank=R pid=PID} per child, forwards their output
 * prefixed with {@code [rank R]}, and exits non-zero if any child fails (after stopping the others).
 */
@Command(name = "launch", mixinStandardHelpOptions = true,
        description = "Start a seed and N worker JVMs on this machine running MAIN_CLASS_OR_JAR.")
final class LaunchCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    LogOptions logOptions;

    @Option(names = {"-n", "--np"}, required = true, description = "number of worker processes")
    int ranks;

    @Option(names = {"-cp", "--classpath"}, description = "extra class path for the program")
    String classPath;

    @Option(names = "--host", defaultValue = "127.0.0.1",
            description = "loopback address to form the cluster on: 127.0.0.1 or ::1 (default ${DEFAULT-VALUE})")
    String host;

    @Option(names = "--timeout", defaultValue = "30m",
            description = "stop every worker after this long (default ${DEFAULT-VALUE})")
    String timeout;

    @Option(names = "--keep-going", description = "when a rank fails, keep the others running (the default when "
            + "NEXAR_RECOVERY_POLICY is manual or automatic); exit 1 at the end if any rank failed")
    boolean keepGoing;

    @Option(names = "--elastic", description = "print the join string on a line 'join: ...' so that more workers can"
            + " join the running cluster with `nexar worker --join ... --elastic` (admitted at the program's grow())")
    boolean elastic;

    @Parameters(arity = "1..*", paramLabel = "MAIN_CLASS_OR_JAR [ARGS]", description = "program and its arguments")
    List<String> command;

    LaunchCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws Exception {
        if (ranks < 1) {
            throw new UsageException("-n must be at least 1, got " + ranks);
        }
        Duration limit = Flags.duration("--timeout", timeout);
        checkConfiguration(context);
        UserProgram program = UserProgram.of(classPath, command);
        String policy = context.env().getOrDefault(io.nexar.ConfigKey.RECOVERY_POLICY.envVar(), "abort").strip();
        boolean recovers = policy.equalsIgnoreCase("manual") || policy.equalsIgnoreCase("automatic");
        return run(context, ranks, host, limit, program, keepGoing || recovers, elastic);
    }

    /**
     * Builds the workers' configuration from this process's environment and system properties, which they inherit,
     * so that a bad or unknown {@code NEXAR_*} variable stops the command with one line and exit code 3 before any
     * worker JVM starts (rather than one stack trace per rank).
     *
     * @return the configuration (the launcher's seed allows its {@code formation.timeout})
     * @throws InvalidConfigurationException naming the variable
     */
    static NexarConfig checkConfiguration(CliContext context) {
        NexarConfig config = NexarConfig.builder().environment(context.env())
                .systemProperties(context.systemProperties()).build();
        String level = context.env().get(CliLogProvider.LEVEL_VARIABLE);
        if (level != null && !level.isBlank()) {
            try {
                CliLogProvider.parse(level);
            } catch (IllegalArgumentException e) {
                throw new InvalidConfigurationException(CliLogProvider.LEVEL_VARIABLE, level, CliLogProvider.LEVELS);
            }
        }
        return config;
    }

    /** Starts the seed and the workers and supervises them; shared with {@code nexar demo}. */
    static int run(CliContext context, int ranks, String host, Duration limit, UserProgram program)
            throws Exception {
        return run(context, ranks, host, limit, program, false, false);
    }

    /**
     * Like {@link #run(CliContext, int, String, Duration, UserProgram)}; see {@code --keep-going} and
     * {@code --elastic}.
     */
    static int run(CliContext context, int ranks, String host, Duration limit, UserProgram program,
                   boolean keepGoing, boolean elastic) throws Exception {
        NexarConfig config = checkConfiguration(context);
        // a worker that dies before formation fails it within the time a running cluster takes to notice a death
        String bind = host.contains(":") ? "[" + host + "]:0" : host + ":0";
        var options = SeedOptions.builder(ranks).bind(bind).formationDeadline(config.formationTimeout())
                .vacancyTimeout(config.heartbeatTimeout()).certValidity(config.certValidity()).build();
        try (SeedServer seed = SeedServer.start(options);
             var children = new ChildProcesses(context.out(), context.err(), Duration.ofSeconds(5))) {
            String join = seed.joinString();
            if (elastic) {
                context.out().println("join: " + join);
                context.out().flush();
            }
            Thread hook = Thread.ofPlatform().unstarted(children::close);
            Runtime.getRuntime().addShutdownHook(hook);
            try {
                children.start(ranks, r -> program.command(), r -> Map.of("NEXAR_JOIN", join,
                        "NEXAR_RANK", String.valueOf(r), "NEXAR_WORLD_SIZE", String.valueOf(ranks)));
                int[] codes = children.await(limit, keepGoing);
                int failed = 0;
                for (int code : codes) {
                    failed += code == 0 ? 0 : 1;
                }
                if (failed > 0) {
                    context.err().println("nexar: " + failed + " of " + ranks + " ranks failed; exit codes by rank: "
                            + java.util.Arrays.toString(codes));
                    return ExitCodes.FAILED;
                }
                return ExitCodes.OK;
            } finally {
                Runtime.getRuntime().removeShutdownHook(hook);
            }
        }
    }
}
