package io.nexar.cli;

import io.nexar.InvalidConfigurationException;
import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code nexar run [-cp CP] MAIN_CLASS_OR_JAR [ARGS]}: runs the program's {@code main} in this JVM, with nexar (and
 * its examples) on the class path and the environment as it is: what torchrun, srun, mpirun or a Kubernetes pod
 * starts on every rank. The program joins with {@code Nexar.join()}, which reads its rank, world size, seed address
 * and token from that environment; without {@code NEXAR_CA_FINGERPRINT}, rank 0 starts the seed in its process.
 *
 * <p>Options end at MAIN_CLASS_OR_JAR: everything after it goes to the program. The command exits when {@code main}
 * returns (0), throws (1, or 3 for a bad configuration value) or calls {@link System#exit}; threads the program leaves
 * running do not keep it alive.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Run MAIN_CLASS_OR_JAR in this JVM with nexar on its class path and the environment as it is"
                + " (MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK, NEXAR_TOKEN; or the Slurm or Open MPI equivalents).")
final class RunCommand implements Callable<Integer> {
    private final CliContext context;

    @Mixin
    LogOptions logOptions;

    @Option(names = {"-cp", "--classpath"}, description = "extra class path for the program")
    String classPath;

    @Parameters(arity = "1..*", paramLabel = "MAIN_CLASS_OR_JAR [ARGS]", description = "program and its arguments")
    List<String> command;

    RunCommand(CliContext context) {
        this.context = context;
    }

    @Override
    public Integer call() throws Exception {
        UserProgram program;
        try {
            program = UserProgram.of(classPath, command);
        } catch (IllegalArgumentException e) {
            context.err().println("nexar run: " + e.getMessage());
            return ExitCodes.USAGE;
        }
        var loader = new URLClassLoader("nexar-run", urls(program.classPath()), RunCommand.class.getClassLoader());
        Method main;
        try {
            main = Class.forName(program.mainClass(), true, loader).getMethod("main", String[].class);
        } catch (ClassNotFoundException | NoSuchMethodException e) {
            context.err().println("nexar run: no class " + program.mainClass() + " with a main(String[]) on the class"
                    + " path" + (program.classPath().isEmpty() ? " (add it with -cp)" : " " + program.classPath()));
            return ExitCodes.USAGE;
        }
        if (!Modifier.isStatic(main.getModifiers())) {
            context.err().println("nexar run: " + program.mainClass() + ".main(String[]) is not static");
            return ExitCodes.USAGE;
        }
        main.setAccessible(true);
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(loader);
        try {
            main.invoke(null, (Object) program.args().toArray(String[]::new));
            return ExitCodes.OK;
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            context.err().println("nexar run: " + program.mainClass() + " failed: " + cause);
            cause.printStackTrace(context.err());
            return cause instanceof InvalidConfigurationException ? ExitCodes.CONFIG : ExitCodes.FAILED;
        } finally {
            Thread.currentThread().setContextClassLoader(previous); // for in-process callers (tests)
        }
    }

    private static URL[] urls(String classPath) throws MalformedURLException {
        var out = new ArrayList<URL>();
        for (String entry : classPath.split(File.pathSeparator)) {
            if (!entry.isBlank()) {
                out.add(Path.of(entry).toAbsolutePath().toUri().toURL());
            }
        }
        return out.toArray(URL[]::new);
    }
}
