package io.nexar.cli;

import io.nexar.InvalidConfigurationException;
import io.nexar.NexarConfig;
import io.nexar.internal.cluster.LaunchEnvironment;
import io.nexar.transport.quic.QuicTransportProvider;
import io.nexar.transport.quic.security.JoinString;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code nexar worker --join JOIN_STRING [--elastic] -- MAIN_CLASS_OR_JAR [ARGS]}: runs the program in a new JVM with
 * the join string (and the requested rank, or with {@code --elastic} {@code NEXAR_JOIN_ELASTIC=true}) in its
 * environment; the program joins with {@code Nexar.join()}, an elastic worker at the running cluster's next grow().
 */
@Command(name = "worker", mixinStandardHelpOptions = true,
        description = "Run MAIN_CLASS_OR_JAR as a worker of the cluster named by the join string.")
final class WorkerCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    LogOptions logOptions;

    @Option(names = "--join", description = "the join string printed by `nexar seed`")
    String join;

    @Option(names = "--join-file", description = "read the join string from this file (`nexar seed --join-file F`"
            + " writes it), waiting for it to appear for up to --join-wait")
    java.nio.file.Path joinFile;

    @Option(names = "--join-wait", defaultValue = "60s", description = "how long to wait for --join-file to appear"
            + " (default ${DEFAULT-VALUE})")
    String joinWait;

    @Option(names = "--rank", defaultValue = "-1", description = "rank to request (default: any)")
    int rank;

    @Option(names = "--elastic", description = "join the running cluster: wait at the seed until the members' next "
            + "grow() admits this worker (sets NEXAR_JOIN_ELASTIC=true; the seed must still run, see `nexar seed "
            + "--elastic`)")
    boolean elastic;

    @Option(names = {"-cp", "--classpath"}, description = "extra class path for the program")
    String classPath;

    @Option(names = "--timeout", defaultValue = "30m", description = "stop the program after this long")
    String timeout;

    @Parameters(arity = "1..*", paramLabel = "MAIN_CLASS_OR_JAR [ARGS]", description = "program and its arguments")
    List<String> command;

    WorkerCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws Exception {
        if (elastic && rank >= 0) {
            throw new UsageException("--elastic joins a running cluster, which assigns the rank; drop --rank");
        }
        if ((join == null) == (joinFile == null)) {
            throw new UsageException("give the join string with --join or --join-file (one of them)");
        }
        String flag = join != null ? "--join" : "--join-file " + joinFile;
        if (joinFile != null) {
            join = JoinFile.read(joinFile, Flags.duration("--join-wait", joinWait), context.out());
        }
        try {
            JoinString.parse(join);
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigurationException(flag, JoinString.redact(join.strip()),
                    QuicTransportProvider.EXPECTED_JOIN_STRING + "; " + e.getMessage());
        }
        Duration limit = Flags.duration("--timeout", timeout);
        var env = new java.util.HashMap<String, String>();
        env.put("NEXAR_JOIN", join);
        if (rank >= 0) {
            env.put("NEXAR_RANK", String.valueOf(rank));
        }
        if (elastic) {
            env.put(io.nexar.ConfigKey.JOIN_ELASTIC.envVar(), "true");
        }
        // the worker's configuration, checked here once rather than by the program after its JVM started
        var workerEnv = new java.util.HashMap<>(context.env());
        workerEnv.putAll(env);
        NexarConfig.builder().environment(workerEnv).systemProperties(context.systemProperties()).build();
        LaunchEnvironment.from(workerEnv);
        UserProgram program = UserProgram.of(classPath, command);
        try (var child = new ChildProcesses(context.out(), context.err(), Duration.ofSeconds(5), "")) {
            child.start(1, r -> program.command(), r -> env);
            int code = child.await(limit)[0];
            return code == 0 ? ExitCodes.OK : ExitCodes.FAILED;
        }
    }
}
