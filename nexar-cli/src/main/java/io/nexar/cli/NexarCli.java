package io.nexar.cli;

import io.nexar.InvalidConfigurationException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the {@code nexar} command. The only place that calls {@link System#exit}. */
@Command(name = "nexar", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "nexar-java: collectives and point-to-point messaging for the JVM.",
        footer = ExitCodes.HELP,
        subcommands = {SeedCommand.class, WorkerCommand.class, LaunchCommand.class, RunCommand.class,
            BenchCommand.class, DemoCommand.class, InfoCommand.class, CommandLine.HelpCommand.class})
public final class NexarCli {

    private NexarCli() {
    }

    /** Runs the command line and returns the exit code. */
    public static int run(CliContext context, String... args) {
        LogOptions.reset();
        var cli = new CommandLine(new NexarCli(), new ContextFactory(context));
        cli.setOut(new java.io.PrintWriter(context.out(), true));
        cli.setErr(new java.io.PrintWriter(context.err(), true));
        cli.setExitCodeExceptionMapper(e -> switch (e) {
            case CommandLine.ParameterException p -> ExitCodes.USAGE;
            case UsageException u -> ExitCodes.USAGE;
            case InvalidConfigurationException c -> ExitCodes.CONFIG;
            default -> ExitCodes.FAILED;
        });
        // usage errors: the error and one hint line, not the whole usage (that is what --help is for)
        cli.setParameterExceptionHandler((e, unparsed) -> {
            var cmd = e.getCommandLine();
            String message = e.getMessage();
            if (e instanceof CommandLine.UnmatchedArgumentException u && !u.getSuggestions().isEmpty()) {
                message += "; did you mean " + String.join(" or ", u.getSuggestions()) + "?";
            }
            cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": " + message);
            cmd.getErr().println(hint(cmd));
            return ExitCodes.USAGE;
        });
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println(cmd.getCommandSpec().qualifiedName() + ": " + e.getMessage());
            if (e instanceof UsageException) {
                cmd.getErr().println(hint(cmd));
                return ExitCodes.USAGE;
            }
            return e instanceof InvalidConfigurationException ? ExitCodes.CONFIG : ExitCodes.FAILED;
        });
        cli.getCommandSpec().exitCodeOnInvalidInput(ExitCodes.USAGE);
        cli.getSubcommands().get("run").getCommandSpec().parser().stopAtPositional(true); // the rest is the program's
        cli.getSubcommands().values().forEach(sub -> sub.getCommandSpec().exitCodeOnInvalidInput(ExitCodes.USAGE));
        return cli.execute(args);
    }

    /** The line after a usage error: {@code Run 'nexar seed --help' for usage.} */
    static String hint(CommandLine cmd) {
        return "Run '" + cmd.getCommandSpec().qualifiedName() + " --help' for usage.";
    }

    public static void main(String[] args) {
        CliLogProvider.select(); // before the first logger: nexar's lines as docs/logging.md shows them
        System.exit(run(CliContext.system(), args));
    }

    /** Gives every subcommand the {@link CliContext}. */
    private record ContextFactory(CliContext context) implements CommandLine.IFactory {
        @Override
        public <K> K create(Class<K> cls) throws Exception {
            try {
                var ctor = cls.getDeclaredConstructor(CliContext.class);
                return ctor.newInstance(context);
            } catch (NoSuchMethodException e) {
                return CommandLine.defaultFactory().create(cls);
            }
        }
    }
}
