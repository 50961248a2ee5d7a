package io.nexar.cli;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code nexar worker --join JOIN_STRING -- MAIN_CLASS_OR_JAR [ARGS]}: runs the program in a new JVM with the join
 * string (and the requested rank) in its environment; the program joins with {@code Nexar.join()}.
 */
@Command(name = "worker", mixinStandardHelpOptions = true,
        description = "Run MAIN_CLASS_OR_JAR as a worker of the cluster named by the join string.")
final class WorkerCommand implements Callable<Integer> {
    private final CliContext context;

    @Option(names = "--join", required = true, description = "the join string printed by `nexar seed`")
    String join;

    @Option(names = "--rank", defaultValue = "-1", description = "rank to request (default: any)")
    int rank;

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
        if (!join.startsWith("nexar://")) {
            context.err().println("nexar worker: --join must be the nexar://... string that `nexar seed` printed");
            return ExitCodes.USAGE;
        }
        Duration limit = Flags.duration("--timeout", timeout);
        UserProgram program = UserProgram.of(classPath, command);
        try (var child = new ChildProcesses(context.out(), context.err(), Duration.ofSeconds(5), "")) {
            child.start(1, r -> program.command(), r -> rank < 0 ? Map.of("NEXAR_JOIN", join)
                    : Map.of("NEXAR_JOIN", join, "NEXAR_RANK", String.valueOf(rank)));
            int code = child.await(limit)[0];
            return code == 0 ? ExitCodes.OK : ExitCodes.FAILED;
        }
    }
}
