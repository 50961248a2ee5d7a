package io.nexar.internal.cluster;

import io.nexar.InvalidConfigurationException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Where a process finds its place in a cluster: the join string, its requested rank, the world size and the seed's
 * address, read from nexar's variables or from the launcher conventions of the ecosystem, so nexar runs unchanged
 * under torchrun, Slurm and Open MPI's mpirun.
 *
 * <table>
 *   <caption>Variables, highest precedence first</caption>
 *   <tr><th>value</th><th>variables</th></tr>
 *   <tr><td>join string</td><td>NEXAR_JOIN; or built from the seed address (below), the token and
 *   NEXAR_CA_FINGERPRINT, so torchrun-style jobs need only those two extra variables; or, without
 *   NEXAR_CA_FINGERPRINT, a token-only join string ({@code auth=token}): rank 0 starts the seed itself
 *   ({@link #hostsSeed()}) and every rank authenticates it by a proof of the token bound to its TLS session</td></tr>
 *   <tr><td>token</td><td>NEXAR_TOKEN, or the contents of the file NEXAR_TOKEN_FILE</td></tr>
 *   <tr><td>rank</td><td>NEXAR_RANK, RANK (torchrun), SLURM_PROCID, OMPI_COMM_WORLD_RANK, JOB_COMPLETION_INDEX
 *   (a Kubernetes Indexed Job)</td></tr>
 *   <tr><td>world size</td><td>NEXAR_WORLD_SIZE, WORLD_SIZE (torchrun), SLURM_NTASKS, OMPI_COMM_WORLD_SIZE</td></tr>
 *   <tr><td>seed address</td><td>NEXAR_SEED (host:port), MASTER_ADDR + MASTER_PORT (torchrun); without
 *   MASTER_ADDR, the first host of SLURM_STEP_NODELIST or SLURM_JOB_NODELIST + MASTER_PORT</td></tr>
 * </table>
 *
 * @param joinString the join string, if given
 * @param rank the requested rank, if given
 * @param worldSize the world size, if given
 * @param seedAddress the seed's {@code host:port} ({@code [v6]:port} for IPv6), if given
 * @param sources one line per value found, naming the variable it came from, for {@code nexar info} and errors
 * @param hostsSeed whether this process starts the seed itself: a token-only launch (no CA fingerprint) on rank 0
 */
public record LaunchEnvironment(Optional<String> joinString, OptionalInt rank, OptionalInt worldSize,
                                Optional<String> seedAddress, List<String> sources, boolean hostsSeed) {

    /**
     * nexar's own variables read here; they are not settings of {@code NexarConfig}, which accepts them beside its
     * keys' variables (any other {@code NEXAR_*} variable is an error).
     */
    public static final List<String> VARIABLES = List.of("NEXAR_JOIN", "NEXAR_RANK", "NEXAR_WORLD_SIZE",
            "NEXAR_SEED", "NEXAR_TOKEN", "NEXAR_TOKEN_FILE", "NEXAR_CA_FINGERPRINT");

    private static final List<String> RANK_VARS =
            List.of("NEXAR_RANK", "RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "JOB_COMPLETION_INDEX");
    private static final List<String> WORLD_VARS =
            List.of("NEXAR_WORLD_SIZE", "WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE");

    public LaunchEnvironment {
        sources = List.copyOf(sources);
    }

    /**
     * Reads {@code env}.
     *
     * @throws InvalidConfigurationException naming the variable when a value is malformed, or when the rank is not
     *                                       below the world size
     */
    public static LaunchEnvironment from(Map<String, String> env) {
        var sources = new ArrayList<String>();
        Optional<String> join = Optional.ofNullable(env.get("NEXAR_JOIN")).map(String::strip).filter(s -> !s.isEmpty());
        join.ifPresent(j -> sources.add("join string from NEXAR_JOIN"));
        OptionalInt rank = firstInt(env, RANK_VARS, 0, "rank", sources);
        OptionalInt world = firstInt(env, WORLD_VARS, 1, "world size", sources);
        if (rank.isPresent() && world.isPresent() && rank.getAsInt() >= world.getAsInt()) {
            throw new InvalidConfigurationException(sources.get(sources.size() - 2).replaceFirst(".* from ", ""),
                    String.valueOf(rank.getAsInt()), "a rank in [0, " + world.getAsInt() + ") (world size from "
                            + sources.getLast().replaceFirst(".* from ", "") + ")");
        }
        Optional<String> seed = seedAddress(env, sources);
        boolean hostsSeed = false;
        if (join.isEmpty() && seed.isPresent()) {
            String token = token(env);
            String ca = env.get("NEXAR_CA_FINGERPRINT");
            boolean hasCa = ca != null && !ca.isBlank();
            if (token == null && hasCa) {
                throw new InvalidConfigurationException("NEXAR_TOKEN", "", "a value: NEXAR_TOKEN (or"
                        + " NEXAR_TOKEN_FILE) and NEXAR_CA_FINGERPRINT go together (the seed prints both in its join"
                        + " string)");
            }
            if (token != null && hasCa) {
                String fingerprint = ca.strip().startsWith("sha256:") ? ca.strip() : "sha256:" + ca.strip();
                sources.add("join string from the seed address, the token and NEXAR_CA_FINGERPRINT");
                join = Optional.of("nexar://" + seed.get() + "?token=" + token + "&ca=" + fingerprint);
            } else if (token != null) {
                requireForSeedless(rank, "RANK", "its rank");
                requireForSeedless(world, "WORLD_SIZE", "the world size");
                hostsSeed = rank.getAsInt() == 0;
                sources.add("token-only join string from the seed address and the token (no NEXAR_CA_FINGERPRINT:"
                        + " rank 0 starts the seed" + (hostsSeed ? ", and this is rank 0)" : ")"));
                join = Optional.of("nexar://" + seed.get() + "?token=" + token + "&auth=token");
            }
        }
        return new LaunchEnvironment(join, rank, world, seed, sources, hostsSeed);
    }

    /** NEXAR_TOKEN, or the stripped contents of NEXAR_TOKEN_FILE, or null if neither is set. */
    private static String token(Map<String, String> env) {
        String token = env.get("NEXAR_TOKEN");
        if (token != null && !token.isBlank()) {
            return token.strip();
        }
        String file = env.get("NEXAR_TOKEN_FILE");
        if (file == null || file.isBlank()) {
            return null;
        }
        String text;
        try {
            text = Files.readString(Path.of(file.strip()), StandardCharsets.UTF_8).strip();
        } catch (IOException | RuntimeException e) {
            throw new InvalidConfigurationException("NEXAR_TOKEN_FILE", file, "a readable file holding the join"
                    + " token (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        }
        if (text.isEmpty()) {
            throw new InvalidConfigurationException("NEXAR_TOKEN_FILE", file, "a file holding the join token, not"
                    + " an empty one");
        }
        return text;
    }

    private static void requireForSeedless(OptionalInt value, String variable, String what) {
        if (value.isEmpty()) {
            throw new InvalidConfigurationException(variable, "", "a value: without NEXAR_CA_FINGERPRINT rank 0 starts"
                    + " the seed, so every process needs " + what + " (" + variable + ", or the Slurm or Open MPI"
                    + " equivalent)");
        }
    }

    private static OptionalInt firstInt(Map<String, String> env, List<String> names, int min, String what,
                                        List<String> sources) {
        for (String name : names) {
            String v = env.get(name);
            if (v == null || v.isBlank()) {
                continue;
            }
            int value;
            try {
                value = Integer.parseInt(v.strip());
            } catch (NumberFormatException e) {
                throw new InvalidConfigurationException(name, v, "an integer " + (min == 0 ? ">= 0" : ">= 1"));
            }
            if (value < min) {
                throw new InvalidConfigurationException(name, v, "an integer " + (min == 0 ? ">= 0" : ">= 1"));
            }
            sources.add(what + " " + value + " from " + name);
            return OptionalInt.of(value);
        }
        return OptionalInt.empty();
    }

    private static Optional<String> seedAddress(Map<String, String> env, List<String> sources) {
        String seed = env.get("NEXAR_SEED");
        if (seed != null && !seed.isBlank()) {
            checkHostPort("NEXAR_SEED", seed.strip());
            sources.add("seed " + seed.strip() + " from NEXAR_SEED");
            return Optional.of(seed.strip());
        }
        String host = env.get("MASTER_ADDR");
        String port = env.get("MASTER_PORT");
        String hostSource = "MASTER_ADDR";
        if ((host == null || host.isBlank()) && port != null && !port.isBlank()) {
            for (String list : List.of("SLURM_STEP_NODELIST", "SLURM_JOB_NODELIST")) {
                String nodes = env.get(list);
                if (nodes != null && !nodes.isBlank()) {
                    try {
                        host = SlurmNodeList.first(nodes);
                    } catch (IllegalArgumentException e) {
                        throw new InvalidConfigurationException(list, nodes, "a Slurm host list such as"
                                + " node[01-04,07] (" + e.getMessage() + ")");
                    }
                    hostSource = "the first host of " + list;
                    break;
                }
            }
        }
        if (host == null || host.isBlank()) {
            return Optional.empty();
        }
        if (port == null || port.isBlank()) {
            throw new InvalidConfigurationException("MASTER_PORT", port == null ? "" : port,
                    "a port in [1, 65535] (MASTER_ADDR is set)");
        }
        checkPort("MASTER_PORT", port.strip());
        String h = host.strip();
        String address = (h.contains(":") && !h.startsWith("[") ? "[" + h + "]" : h) + ":" + port.strip();
        sources.add("seed " + address + " from " + hostSource + " and MASTER_PORT");
        return Optional.of(address);
    }

    private static void checkHostPort(String name, String value) {
        int colon = value.lastIndexOf(':');
        boolean v6 = value.startsWith("[");
        if (colon <= 0 || (v6 && value.indexOf(']') != colon - 1) || (!v6 && value.indexOf(':') != colon)) {
            throw new InvalidConfigurationException(name, value, "host:port, with IPv6 hosts in brackets ([::1]:7000)");
        }
        try {
            checkPort(name, value.substring(colon + 1));
        } catch (InvalidConfigurationException e) {
            throw new InvalidConfigurationException(name, value, "host:port with a port in [1, 65535]");
        }
    }

    private static void checkPort(String name, String port) {
        try {
            int p = Integer.parseInt(port);
            if (p >= 1 && p <= 65535) {
                return;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new InvalidConfigurationException(name, port, "a port in [1, 65535]");
    }
}
