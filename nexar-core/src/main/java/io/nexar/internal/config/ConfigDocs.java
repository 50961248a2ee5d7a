package io.nexar.internal.config;

import io.nexar.ConfigKey;
import io.nexar.InvalidConfigurationException;
import io.nexar.NexarConfig;
import io.nexar.internal.cluster.LaunchEnvironment;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Renders {@code docs/config.md} from the {@link ConfigKey} table, so the documentation cannot drift from the code.
 * {@code ConfigDocTest} checks the committed file against {@link #render()} and rewrites it when run with
 * {@code -Dnexar.regenerateDocs=true}.
 */
public final class ConfigDocs {
    private ConfigDocs() {
    }

    /** The complete text of {@code docs/config.md}, with {@code \n} line ends and a final line break. */
    public static String render() {
        var sb = new StringBuilder();
        sb.append("""
                <!-- Generated from io.nexar.ConfigKey by io.nexar.internal.config.ConfigDocs: do not edit.
                     Regenerate with ./mvnw -pl nexar-core test -Dtest=ConfigDocTest -Dnexar.regenerateDocs=true -->

                # Configuration

                nexar reads its settings into one immutable `NexarConfig`. Every setting has a key, an environment
                variable and a system property, derived from the key name: `p2p.timeout` is `NEXAR_P2P_TIMEOUT` and
                `-Dnexar.p2p.timeout`. The `nexar` commands have no flag per setting: the workers that `nexar launch`,
                `nexar worker`, `nexar demo` and `nexar bench` start inherit the environment, so set `NEXAR_*`
                variables (the command checks them before it starts any worker). A few flags set one setting each:
                `nexar bench --algo` and `--bulk`, `nexar worker --elastic` (`join.elastic`).

                ## Precedence

                From lowest to highest: the built-in default, the environment variable, the system property, then
                `NexarConfig.Builder` calls. `NexarConfig.defaults()` uses the defaults only;
                `NexarConfig.fromEnvironment()` and `NexarConfig.builder()` read the environment and the system
                properties. Only the winning value of a key is read. `NexarConfig.describe()`, printed by `nexar info`,
                shows each effective value and where it came from.

                ## Values

                - **Durations** are a whole number and a unit: `ns`, `us`, `ms`, `s`, `m` (minutes) or `h`, for example
                  `500ms` or `30s`. The unit is required: `30` alone is rejected. At most `%s`.
                - **Sizes** are a whole number and an optional unit: `B`; binary `KiB`, `MiB`, `GiB`, `TiB` (powers of
                  1024); or decimal `KB`, `MB`, `GB`, `TB` (powers of 1000). A number alone is bytes. At most `%s`.
                - **Booleans** are `true` or `false`; **choices** are one of the values listed for the key.
                - **Addresses** are `auto`, an IPv4 or IPv6 address (`10.0.0.5`, `fd00::5` or `[fd00::5]`) or a host
                  name, which is looked up when the process joins, not when the setting is read. **Port ranges** are
                  `0` (any free port), one port (`40000`) or `FIRST-LAST` (`40000-40100`), ports 1 to 65535.
                - Units, booleans and choices are case-insensitive. Blanks around the value or between number and unit
                  are ignored. Signs, fractions (`1.5s`), exponents and digit separators are rejected; so are values
                  too large for their type, which are never wrapped.
                - Values are printed in their shortest exact form: `500ms`, `2m`, `16MiB`, or bytes (`1000B`).

                ## Errors

                A malformed or out-of-range value is fatal: building the configuration throws
                `InvalidConfigurationException`, which names the variable as it was written, the value and the expected
                form. A value is never replaced by its default in silence.

                ```
                %s
                ```

                `chunk.size` must also be at most `max.frame.size` minus %s of frame headers; the error names both
                settings and their values.

                Names are strict as well: a `NEXAR_*` environment variable or `nexar.*` system property that is not a
                setting below is an error naming it and, when one is close, the setting it was probably meant to be:

                ```
                %s
                ```

                The only other `NEXAR_*` variables are `NEXAR_WORKER_JAVA_OPTS` (JVM options of the workers the `nexar`
                command starts), `NEXAR_JAVA_OPTS` (JVM options of the `nexar` command itself), `NEXAR_LOG_LEVEL`
                (the level of the log lines of the `nexar` command and the JVMs it starts, docs/logging.md) and those that tell
                `Nexar.join()` where a process joins:
                %s.
                The only other `nexar.*` properties are those of nexar's own test suites: `nexar.test.*`,
                `nexar.netns.*` and `nexar.regenerateDocs`.

                ## Settings

                | Key | Environment variable | System property | Type | Default | Allowed | Description |
                |---|---|---|---|---|---|---|
                """.formatted(Units.formatDuration(Units.MAX_DURATION), Units.formatSize(Units.MAX_SIZE_BYTES),
                exampleError(Map.of("NEXAR_P2P_TIMEOUT", "30x")), Units.formatSize(NexarConfig.FRAME_HEADROOM_BYTES),
                exampleError(Map.of("NEXAR_P2P_TIMOUT", "5s")), LaunchEnvironment.VARIABLES.stream()
                        .map(v -> "`" + v + "`").collect(Collectors.joining(", "))));
        for (var key : ConfigKey.values()) {
            sb.append("| `").append(key.key())
                    .append("` | `").append(key.envVar())
                    .append("` | `").append(key.systemProperty())
                    .append("` | ").append(key.type().displayName())
                    .append(" | `").append(key.defaultValue())
                    .append("` | ").append(cell(key.allowed()))
                    .append(" | ").append(cell(key.description()))
                    .append(" |\n");
        }
        return sb.toString();
    }

    /** The message of a real failure, so the example cannot drift from the code. */
    private static String exampleError(Map<String, String> environment) {
        try {
            NexarConfig.builder().ignoreEnvironment().environment(environment).build();
        } catch (InvalidConfigurationException e) {
            return e.getMessage();
        }
        throw new AssertionError(environment + " was accepted");
    }

    /** Escapes a table cell. */
    private static String cell(String text) {
        return text.replace("|", "\\|");
    }
}
