package io.nexar.internal.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every copy between two segments in the shipped code of nexar-core, nexar-transport-quic and nexar-cli goes through
 * {@link Segments#copy}: the five-argument {@code MemorySegment.copy} and {@code copyFrom} move small copies with a Java
 * loop that HotSpot's C2 compiled wrongly (docs/performance.md, "A miscompiled small copy"), so they must not come
 * back. Also checks that {@link Segments#copy} copies what it is given, overlapping ranges included.
 */
class SegmentCopiesTest {
    /** {@code MemorySegment.copy(} followed by five arguments none of which is a layout, or {@code .copyFrom(}. */
    private static final Pattern COPY_FROM = Pattern.compile("\\.copyFrom\\(");

    @Test
    @Timeout(30)
    void shippedCodeCopiesBetweenSegmentsOnlyThroughSegmentsCopy() throws IOException {
        List<String> found = new ArrayList<>();
        for (String module : List.of("../nexar-core", "../nexar-transport-quic", "../nexar-cli")) {
            Path root = Path.of(module, "src/main/java");
            assertThat(root).as("sources of %s (run from its module folder)", module).isDirectory();
            try (Stream<Path> files = Files.walk(root)) {
                files.filter(f -> f.toString().endsWith(".java") && !f.endsWith("Segments.java")).forEach(f -> {
                    String text = read(f);
                    if (COPY_FROM.matcher(text).find()) {
                        found.add(f + ": copyFrom");
                    }
                    int at = text.indexOf("MemorySegment.copy(");
                    while (at >= 0) {
                        List<String> args = arguments(text, at + "MemorySegment.copy(".length());
                        if (args.size() == 5 && args.stream().noneMatch(SegmentCopiesTest::isLayout)) {
                            found.add(f + ": MemorySegment.copy(" + String.join(",", args) + ")");
                        }
                        at = text.indexOf("MemorySegment.copy(", at + 1);
                    }
                });
            }
        }
        assertThat(found).as("copies between segments not through Segments.copy").isEmpty();
    }

    @Test
    @Timeout(10)
    void copiesSmallAndOverlappingRanges() {
        for (int n = 0; n <= 70; n++) {
            var src = MemorySegment.ofArray(new byte[80]);
            for (int i = 0; i < 80; i++) {
                src.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i + 1));
            }
            var dst = MemorySegment.ofArray(new byte[80]);
            Segments.copy(src, 3, dst, 5, n);
            for (int i = 0; i < 80; i++) {
                byte want = i >= 5 && i < 5 + n ? (byte) (i - 5 + 3 + 1) : 0;
                assertThat(dst.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i)).as("n=%d byte %d", n, i)
                        .isEqualTo(want);
            }
            Segments.copy(src, 0, src, 2, n); // overlapping: as if through a temporary copy
            for (int i = 2; i < 2 + n; i++) {
                assertThat(src.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i)).as("overlap n=%d byte %d", n, i)
                        .isEqualTo((byte) (i - 2 + 1));
            }
        }
    }

    private static boolean isLayout(String arg) {
        return arg.contains("JAVA_") || arg.matches("(BYTE|F32|F64|I16|I32|I64|element|[a-z]*Layout.*|littleEndian\\(.*)");
    }

    /** The top-level arguments of the call whose argument list starts at {@code from}. */
    private static List<String> arguments(String text, int from) {
        List<String> args = new ArrayList<>();
        int depth = 1;
        int start = from;
        for (int i = from; i < text.length() && depth > 0; i++) {
            char c = text.charAt(i);
            if (c == '(' || c == '[' || c == '{') {
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                depth--;
                if (depth == 0) {
                    args.add(text.substring(start, i).strip());
                }
            } else if (c == ',' && depth == 1) {
                args.add(text.substring(start, i).strip());
                start = i + 1;
            }
        }
        return args;
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
