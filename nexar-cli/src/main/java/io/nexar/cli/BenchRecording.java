package io.nexar.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Duration;
import java.util.List;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * {@code nexar bench --jfr FILE}: a JDK Flight Recorder recording of one JVM with the JDK's default settings plus
 * every nexar event (collectives, point-to-point, peer failures, membership changes, connections), each with no
 * threshold, written to its file when the run ends. Open it in JDK Mission Control (Event Browser, category "nexar")
 * or print it: {@code jfr print --categories nexar FILE}.
 */
final class BenchRecording implements AutoCloseable {
    /** The names of nexar's events (package io.nexar.internal.jfr). */
    static final List<String> EVENTS = List.of("io.nexar.Collective", "io.nexar.PointToPoint", "io.nexar.PeerFailure",
            "io.nexar.Membership", "io.nexar.Connection");

    private final Recording recording;

    private BenchRecording(Recording recording) {
        this.recording = recording;
    }

    /** Starts recording into {@code file}; null for no recording. */
    static BenchRecording start(Path file) throws IOException {
        if (file == null) {
            return new BenchRecording(null);
        }
        Recording r;
        try {
            r = new Recording(Configuration.getConfiguration("default"));
        } catch (ParseException e) {
            throw new IOException("the JDK's default JFR configuration cannot be read: " + e.getMessage(), e);
        }
        for (String name : EVENTS) {
            r.enable(name).withThreshold(Duration.ZERO);
        }
        r.setName("nexar bench");
        r.setDestination(file);
        r.start();
        return new BenchRecording(r);
    }

    /**
     * The file of one rank's recording: {@code base} with {@code -rankR} before its {@code .jfr} extension (added
     * if missing), for example {@code run.jfr} gives {@code run-rank2.jfr}.
     */
    static Path forRank(String base, int rank) {
        String stem = base.endsWith(".jfr") ? base.substring(0, base.length() - 4) : base;
        return Path.of(stem + "-rank" + rank + ".jfr");
    }

    /** Stops the recording and writes its file. */
    @Override
    public void close() {
        if (recording != null) {
            recording.stop();
            recording.close();
        }
    }
}
