package io.nexar.cli;

import io.nexar.InvalidConfigurationException;
import io.nexar.internal.config.Units;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

/**
 * The join string in a file, for job scripts: {@code nexar seed --join-file F} writes it, {@code nexar worker
 * --join-file F} reads it. The file holds the cluster's token, so it is created readable by its owner only (mode
 * 0600 where the file system has POSIX permissions) and appears whole: it is written beside its final name and moved
 * into place, so a worker that waits for it never reads half a line.
 */
final class JoinFile {
    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration REPORT_EVERY = Duration.ofSeconds(10);

    private JoinFile() {
    }

    /** Writes {@code join} and a newline to {@code file} (mode 0600), replacing it whole. */
    static void write(Path file, String join) {
        Path target = file.toAbsolutePath();
        try {
            Path temp = posix()
                    ? Files.createTempFile(target.getParent(), ".nexar-join", ".tmp",
                            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))
                    : Files.createTempFile(target.getParent(), ".nexar-join", ".tmp");
            try {
                Files.writeString(temp, join + "\n", StandardCharsets.UTF_8);
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(temp);
            }
        } catch (IOException e) {
            throw new InvalidConfigurationException("--join-file", file.toString(),
                    "a file this process can create (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        }
    }

    /**
     * The join string in {@code file}, waiting up to {@code patience} for the file to appear (a seed started at the
     * same time writes it); prints a line to {@code out} every 10 s while it waits.
     *
     * @throws InvalidConfigurationException if the file does not appear in time, cannot be read, or is empty
     */
    static String read(Path file, Duration patience, PrintStream out) throws InterruptedException {
        long start = System.nanoTime();
        long nextReport = start + REPORT_EVERY.toNanos();
        while (true) {
            try {
                String join = Files.readString(file, StandardCharsets.UTF_8).strip();
                if (join.isEmpty()) {
                    throw new InvalidConfigurationException("--join-file", file.toString(),
                            "a file holding the join string that `nexar seed --join-file` writes; it is empty");
                }
                return join;
            } catch (NoSuchFileException e) {
                long now = System.nanoTime();
                if (now - start >= patience.toNanos()) {
                    throw new InvalidConfigurationException("--join-file", file.toString(), "a file holding the"
                            + " join string that `nexar seed --join-file` writes; it did not appear within "
                            + Units.formatRounded(patience));
                }
                if (now >= nextReport) {
                    out.println("waiting for join file " + file + " (" + Units.formatRounded(Duration.ofNanos(now - start))
                            + " of " + Units.formatRounded(patience) + ")");
                    out.flush();
                    nextReport += REPORT_EVERY.toNanos();
                }
                Thread.sleep(POLL);
            } catch (AccessDeniedException e) {
                throw new InvalidConfigurationException("--join-file", file.toString(),
                        "a file this user can read; access denied");
            } catch (IOException e) {
                throw new UncheckedIOException("reading the join file " + file + " failed", e);
            }
        }
    }

    private static boolean posix() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    }
}
