package io.nexar.internal.cluster;

import io.nexar.InvalidConfigurationException;
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
 *   <tr><td>join string</td><td>NEXAR_JOIN; or built from the seed address (below), NEXAR_TOKEN and
 *   NEXAR_CA_FINGERPRINT, so torchrun-style jobs need only those two extra variables</td></tr>
 *   <tr><td>rank</td><td>NEXAR_RANK, RANK (torchrun), SLURM_PROCID, OMPI_COMM_WORLD_RANK</td></tr>
 *   <tr><td>world size</td><td>NEXAR_WORLD_SIZE, WORLD_SIZE (torchrun), SLURM_NTASKS, OMPI_COMM_WORLD_SIZE</td></tr>
 *   <tr><td>seed address</td><td>NEXAR_SEED (host:port), MASTER_ADDR + MASTER_PORT (torchrun)</td></tr>
 * </table>
 *
 * @param joinString the join string, if given
 * @param rank the requested rank, if given
 * @param worldSize the world size, if given
 * @param seedAddress the seed's {@code host:port} ({@code [v6]:port} for IPv6), if given
 * @param sources one line per value found, naming the variable it came from, for {@code nexar info} and errors
 */
public record LaunchEnvironment(Optional<String> joinString, OptionalInt rank, OptionalInt worldSize,
                                Optional<String> seedAddress, List<String> sources) {

    /**
     * nexar's own variables read here; they are not settings of {@code NexarConfig}, which accepts them beside its
     * keys' variables (any other {@code NEXAR_*} variable is an error).
     */
    public static final List<String> VARIABLES =
            List.of("NEXAR_JOIN", "NEXAR_RANK", "NEXAR_WORLD_SIZE", "NEXAR_SEED", "NEXAR_TOKEN", "NEXAR_CA_FINGERPRINT");

    private static final List<String> RANK_VARS = List.of("NEXAR_RANK", "RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK");
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
        if (join.isEmpty() && seed.isPresent()) {
            join = composedJoin(env, seed.get(), sources);
        }
        return new LaunchEnvironment(join, rank, world, seed, sources);
    }

    /** {@code nexar://SEED?token=T&ca=F} from NEXAR_TOKEN and NEXAR_CA_FINGERPRINT, when both are set. */
    private static Optional<String> composedJoin(Map<String, String> env, String seed, List<String> sources) {
        String token = env.get("NEXAR_TOKEN");
        String ca = env.get("NEXAR_CA_FINGERPRINT");
        boolean hasToken = token != null && !token.isBlank();
        boolean hasCa = ca != null && !ca.isBlank();
        if (!hasToken && !hasCa) {
            return Optional.empty();
        }
        if (!hasToken || !hasCa) {
            String missing = hasToken ? "NEXAR_CA_FINGERPRINT" : "NEXAR_TOKEN";
            throw new InvalidConfigurationException(missing, "", "a value: NEXAR_TOKEN and NEXAR_CA_FINGERPRINT go"
                    + " together (the seed prints both in its join string)");
        }
        String fingerprint = ca.strip().startsWith("sha256:") ? ca.strip() : "sha256:" + ca.strip();
        sources.add("join string from the seed address, NEXAR_TOKEN and NEXAR_CA_FINGERPRINT");
        return Optional.of("nexar://" + seed + "?token=" + token.strip() + "&ca=" + fingerprint);
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
        sources.add("seed " + address + " from MASTER_ADDR and MASTER_PORT");
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
