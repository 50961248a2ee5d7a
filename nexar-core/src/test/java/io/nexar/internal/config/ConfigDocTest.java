package io.nexar.internal.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Checks that docs/config.md is what {@link ConfigDocs#render()} makes of the current {@code ConfigKey} table. With
 * {@code -Dnexar.regenerateDocs=true} it rewrites the file instead.
 */
@Timeout(10)
class ConfigDocTest {

    static final String REGENERATE = "nexar.regenerateDocs";

    @Test
    void shouldMatchTheGeneratedConfigurationDocs() throws IOException {
        Path file = repositoryRoot().resolve("docs").resolve("config.md");
        String expected = ConfigDocs.render();

        if (Boolean.getBoolean(REGENERATE)) {
            Files.writeString(file, expected, StandardCharsets.UTF_8);
            return;
        }
        assertThat(file).as("%s is missing; generate it with -D%s=true", file, REGENERATE).exists();
        assertThat(Files.readString(file, StandardCharsets.UTF_8))
                .as("%s is out of date with io.nexar.ConfigKey; regenerate it with "
                        + "./mvnw -pl nexar-core test -Dtest=ConfigDocTest -D%s=true", file, REGENERATE)
                .isEqualTo(expected);
    }

    @Test
    void shouldListEveryKeyOnceInTheTable() {
        String doc = ConfigDocs.render();

        for (var key : io.nexar.ConfigKey.values()) {
            assertThat(doc).containsOnlyOnce("| `" + key.key() + "` | `" + key.envVar() + "` | `"
                    + key.systemProperty() + "` | ");
        }
        assertThat(doc).contains(
                "configure failed: NEXAR_P2P_TIMEOUT=\"30x\": expected a duration such as 500ms or 30s")
                .endsWith(" |\n")
                .doesNotContain("\r");
    }

    /** The nearest directory, from the working directory up, holding {@code docs/} and the Maven wrapper. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("docs")) && Files.exists(dir.resolve("mvnw"))) {
                return dir;
            }
        }
        throw new AssertionError("no directory with docs/ and mvnw above " + Path.of("").toAbsolutePath());
    }
}
