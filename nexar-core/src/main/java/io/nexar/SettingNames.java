package io.nexar;

import io.nexar.internal.cluster.LaunchEnvironment;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Strict names: every {@code NEXAR_*} environment variable and every {@code nexar.*} system property must be a
 * setting of {@link ConfigKey} or one of the few other names nexar reads, so that a misspelt setting
 * ({@code -Dnexar.p2p.timout=5s}) is an error naming it and the closest known name, never silently ignored.
 */
final class SettingNames {
    /**
     * {@code NEXAR_*} variables that are not settings but are read elsewhere: where a process joins
     * ({@link LaunchEnvironment#VARIABLES}), the JVM options of the workers {@code nexar launch} starts, the JVM
     * options of the {@code nexar} shell launcher, and the level of the {@code nexar} command's log lines.
     */
    static final List<String> OTHER_VARIABLES = otherVariables();

    /** {@code nexar.*} system properties that are not settings: those of nexar's own test suites. */
    static final List<String> OTHER_PROPERTIES = List.of("nexar.regenerateDocs");

    /** Prefixes of {@code nexar.*} system properties left to nexar's test suites ({@code nexar.test.seed}). */
    static final List<String> OTHER_PROPERTY_PREFIXES = List.of("nexar.test.", "nexar.netns.");

    private static final String ENV_PREFIX = "NEXAR_";
    private static final String PROPERTY_PREFIX = "nexar.";

    private SettingNames() {
    }

    private static List<String> otherVariables() {
        var names = new ArrayList<>(LaunchEnvironment.VARIABLES);
        names.add("NEXAR_WORKER_JAVA_OPTS");
        names.add("NEXAR_JAVA_OPTS");
        names.add("NEXAR_LOG_LEVEL"); // the level of the nexar command's log backend (docs/logging.md)
        return List.copyOf(names);
    }

    /**
     * Checks every name in nexar's namespaces, in sorted order so the first error is the same on every run.
     *
     * @throws InvalidConfigurationException naming the first unknown variable or property and, when one is close,
     *         the known name it was probably meant to be
     */
    static void check(Map<String, String> environment, Map<String, String> systemProperties) {
        for (var e : new TreeMap<>(environment).entrySet()) {
            String name = e.getKey();
            if (name.startsWith(ENV_PREFIX) && !knownVariable(name)) {
                throw InvalidConfigurationException.unknownName("environment variable", name, e.getValue(),
                        closest(name, knownVariables()));
            }
        }
        for (var e : new TreeMap<>(systemProperties).entrySet()) {
            String name = e.getKey();
            if (name.startsWith(PROPERTY_PREFIX) && !knownProperty(name)) {
                throw InvalidConfigurationException.unknownName("system property", name, e.getValue(),
                        closest(name, knownProperties()));
            }
        }
    }

    static boolean knownVariable(String name) {
        return knownVariables().contains(name);
    }

    static boolean knownProperty(String name) {
        return knownProperties().contains(name) || OTHER_PROPERTY_PREFIXES.stream().anyMatch(name::startsWith);
    }

    private static List<String> knownVariables() {
        var names = new ArrayList<String>();
        for (var key : ConfigKey.values()) {
            names.add(key.envVar());
        }
        names.addAll(OTHER_VARIABLES);
        return names;
    }

    private static List<String> knownProperties() {
        var names = new ArrayList<String>();
        for (var key : ConfigKey.values()) {
            names.add(key.systemProperty());
        }
        names.addAll(OTHER_PROPERTIES);
        return names;
    }

    /**
     * The known name closest to {@code name} by edit distance (ignoring case, and the separators {@code _ . -} count
     * as one), or null when even the closest differs in more than a third of its characters (at least 2 allowed):
     * then a suggestion would be a guess.
     */
    static String closest(String name, List<String> known) {
        String n = normalized(name);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String k : known) {
            int d = distance(n, normalized(k));
            if (d < bestDistance) {
                best = k;
                bestDistance = d;
            }
        }
        int allowed = Math.max(2, (n.length() - PROPERTY_PREFIX.length()) / 3);
        return bestDistance <= allowed ? best : null;
    }

    private static String normalized(String name) {
        return name.toLowerCase(Locale.ROOT).replace('_', '.').replace('-', '.');
    }

    /** Levenshtein distance: insertions, deletions and substitutions of one character. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] t = previous;
            previous = current;
            current = t;
        }
        return previous[b.length()];
    }
}
