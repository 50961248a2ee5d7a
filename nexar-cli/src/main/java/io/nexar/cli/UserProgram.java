package io.nexar.cli;

import java.io.File;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The program a worker runs: a main class (found on {@code --classpath} or nexar's class path, which includes
 * the examples) or an executable jar (its manifest's Main-Class, with the jar on the class path).
 *
 * @param classPath extra class path entries, possibly empty
 * @param mainClass the class whose {@code main} runs
 * @param args its arguments
 */
record UserProgram(String classPath, String mainClass, List<String> args) {

    /**
     * The program of a command line, checked before any JVM starts: the jar exists and names a main class, and the
     * main class is on the class path the workers get.
     *
     * @throws UsageException if the jar does not exist or has no Main-Class, or the main class is not found
     */
    static UserProgram of(String classPath, List<String> command) throws IOException {
        if (command.isEmpty()) {
            throw new UsageException("missing MAIN_CLASS_OR_JAR");
        }
        String target = command.getFirst();
        List<String> args = List.copyOf(command.subList(1, command.size()));
        String cp = classPath == null ? "" : classPath;
        UserProgram program;
        if (target.endsWith(".jar")) {
            Path jar = Path.of(target);
            if (!Files.isRegularFile(jar)) {
                throw new UsageException("jar " + target + " does not exist");
            }
            try (var file = new JarFile(jar.toFile())) {
                var manifest = file.getManifest();
                String main = manifest == null ? null : manifest.getMainAttributes().getValue("Main-Class");
                if (main == null) {
                    throw new UsageException("jar " + target + " has no Main-Class in its manifest");
                }
                String joined = cp.isEmpty() ? jar.toAbsolutePath().toString()
                        : jar.toAbsolutePath() + File.pathSeparator + cp;
                program = new UserProgram(joined, main, args);
            }
        } else {
            program = new UserProgram(cp, target, args);
        }
        program.checkMainClass();
        return program;
    }

    /**
     * The command that starts this program in a new JVM with nexar's class path after the program's: the CLI's jar
     * and the plain jars its manifest names (nexar's modules and their dependencies), or whatever class path this JVM
     * was started with.
     */
    List<String> command() {
        return ChildProcesses.javaCommand(classPath, mainClass, args);
    }

    /** Looks the main class up (without initialising it) on the class path the workers get. */
    private void checkMainClass() {
        var urls = new ArrayList<URL>();
        for (String entry : classPath.split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
                urls.addAll(urls(entry));
            }
        }
        try (var loader = new URLClassLoader(urls.toArray(URL[]::new), UserProgram.class.getClassLoader())) {
            Class.forName(mainClass, false, loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new UsageException("main class " + mainClass + " not found on the class path"
                    + (classPath.isEmpty() ? " (nexar's own; add the program's with --classpath)"
                    : " (" + classPath + " and nexar's own)"));
        } catch (IOException e) {
            // closing the loader failed: the class was found
        }
    }

    /** The URLs of one class path entry; {@code DIR/*} stands for the jars in DIR, as for {@code java -cp}. */
    private static List<URL> urls(String entry) {
        try {
            if (entry.endsWith("*")) {
                Path dir = Path.of(entry.substring(0, entry.length() - 1));
                if (!Files.isDirectory(dir)) {
                    return List.of();
                }
                try (Stream<Path> jars = Files.list(dir)) {
                    var list = new ArrayList<URL>();
                    for (Path p : jars.filter(p -> p.toString().endsWith(".jar")).toList()) {
                        list.add(p.toUri().toURL());
                    }
                    return list;
                }
            }
            return List.of(Path.of(entry).toAbsolutePath().toUri().toURL());
        } catch (MalformedURLException | java.nio.file.InvalidPathException e) {
            return List.of();
        } catch (IOException e) {
            return List.of();
        }
    }
}
