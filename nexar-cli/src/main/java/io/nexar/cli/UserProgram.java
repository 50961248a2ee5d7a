package io.nexar.cli;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;

/**
 * The program a worker runs: a main class (found on {@code --classpath} or the nexar jar, which includes the
 * examples) or an executable jar (its manifest's Main-Class, with the jar on the class path).
 *
 * @param classPath extra class path entries, possibly empty
 * @param mainClass the class whose {@code main} runs
 * @param args its arguments
 */
record UserProgram(String classPath, String mainClass, List<String> args) {

    static UserProgram of(String classPath, List<String> command) throws IOException {
        if (command.isEmpty()) {
            throw new IllegalArgumentException("missing MAIN_CLASS_OR_JAR");
        }
        String target = command.getFirst();
        List<String> args = List.copyOf(command.subList(1, command.size()));
        String cp = classPath == null ? "" : classPath;
        if (target.endsWith(".jar")) {
            Path jar = Path.of(target);
            if (!Files.isRegularFile(jar)) {
                throw new IllegalArgumentException("jar " + target + " does not exist");
            }
            try (var file = new JarFile(jar.toFile())) {
                var manifest = file.getManifest();
                String main = manifest == null ? null : manifest.getMainAttributes().getValue("Main-Class");
                if (main == null) {
                    throw new IllegalArgumentException("jar " + target + " has no Main-Class in its manifest");
                }
                String joined = cp.isEmpty() ? jar.toAbsolutePath().toString()
                        : jar.toAbsolutePath() + File.pathSeparator + cp;
                return new UserProgram(joined, main, args);
            }
        }
        return new UserProgram(cp, target, args);
    }

    /** The command that starts this program in a new JVM with the nexar jar on its class path. */
    List<String> command() {
        return ChildProcesses.javaCommand(classPath, mainClass, args);
    }
}
