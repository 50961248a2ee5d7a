package io.nexar.it.netns;

import io.nexar.it.LabProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * A small network built from Linux network namespaces: one router namespace and one namespace per rank, each rank
 * joined to the router by a veth pair on its own /24 ({@code 198.18.R.2} on the rank's side, {@code 198.18.R.1} on the
 * router's). The router forwards between ranks, so traffic between any two ranks crosses the router's nftables
 * forward chain exactly once; that is where links are impaired ({@link #impair}) or a rank is cut off
 * ({@link #isolate}). Nothing is created in the host's namespace, so the host's network is untouched.
 *
 * <pre>
 *   nx-ID-r0 [eth0 198.18.0.2] ---- [vr0 198.18.0.1]
 *   nx-ID-r1 [eth0 198.18.1.2] ---- [vr1 198.18.1.1]  nx-ID-rt (ip_forward=1, table inet nxlab: chain forward;
 *   ...                                                       also where the seed runs, on 198.18.0.1)
 * </pre>
 *
 * <p>Names are {@code nx-<pid of this JVM in hex>-<random>-*}, so parallel runs cannot collide and a later run can
 * remove what a killed JVM left behind ({@link #removeStale()}). {@link #close()} kills every process started here
 * by its PID, deletes every namespace and checks that none is left; a shutdown hook does the same if the JVM is
 * stopped first.
 *
 * <p>{@link #create} skips the calling test (JUnit assumption) with a printed reason when this machine cannot run
 * it: not Linux, not root, no {@code ip}, or namespace creation refused. {@link #impair} and {@link #isolate} skip
 * likewise when no firewall tool or netfilter queue is available.
 */
final class NetnsLab implements AutoCloseable {
    private static final Pattern OURS = Pattern.compile("nx-([0-9a-f]+)-[0-9a-z]+-(rt|r\\d+)");
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(20);
    private static final String TABLE = "inet nxlab";

    private final Tools tools;
    private final String id;
    private final int ranks;
    private final List<String> namespaces = new ArrayList<>();
    private final List<LabProcess> processes = new ArrayList<>();
    private final Thread shutdownHook;
    private boolean closed;

    /** Paths of the tools used; null for an optional tool that is missing. */
    record Tools(Path ip, Path nft, Path iptables, Path python) {
        static Tools find() {
            return new Tools(which("ip"), which("nft"), which("iptables"), which("python3"));
        }
    }

    private NetnsLab(Tools tools, int ranks) {
        this.tools = tools;
        this.ranks = ranks;
        this.id = "nx-" + Long.toHexString(ProcessHandle.current().pid()) + "-"
                + HexFormat.of().toHexDigits((short) ThreadLocalRandom.current().nextInt());
        this.shutdownHook = Thread.ofPlatform().unstarted(this::closeQuietly);
    }

    /**
     * Builds the router and {@code ranks} rank namespaces, or skips the test if this machine cannot.
     *
     * @throws IllegalStateException if a step fails after the first namespace was created (a real failure)
     */
    static NetnsLab create(int ranks) throws IOException {
        assume(System.getProperty("os.name").toLowerCase().contains("linux"), "network namespaces need Linux");
        long uid = effectiveUid();
        assume(uid == 0, "needs root for ip netns and nftables (effective uid " + uid + ")");
        Tools tools = Tools.find();
        assume(tools.ip() != null, "no `ip` command (iproute2) on PATH, /usr/sbin or /sbin");
        removeStale(tools);
        var lab = new NetnsLab(tools, ranks);
        Runtime.getRuntime().addShutdownHook(lab.shutdownHook);
        var first = lab.command(List.of(tools.ip().toString(), "netns", "add", lab.router()));
        if (first.code() != 0) {
            lab.close();
            assume(false, "cannot create a network namespace: " + first.output().strip());
        }
        lab.namespaces.add(lab.router());
        try {
            lab.build();
        } catch (RuntimeException | IOException e) {
            lab.closeQuietly();
            throw e;
        }
        System.out.println("lab: namespaces " + String.join(", ", lab.namespaces) + " ready");
        return lab;
    }

    private void build() throws IOException {
        ip("-n", router(), "link", "set", "lo", "up");
        inNamespace(router(), "sh", "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward");
        for (int r = 0; r < ranks; r++) {
            String ns = rankNamespace(r);
            ip("netns", "add", ns);
            namespaces.add(ns);
            ip("-n", ns, "link", "set", "lo", "up");
            ip("-n", router(), "link", "add", "vr" + r, "type", "veth", "peer", "name", "eth0", "netns", ns);
            ip("-n", router(), "addr", "add", "198.18." + r + ".1/24", "dev", "vr" + r);
            ip("-n", router(), "link", "set", "vr" + r, "up");
            ip("-n", ns, "addr", "add", rankAddress(r) + "/24", "dev", "eth0");
            ip("-n", ns, "link", "set", "eth0", "up");
            ip("-n", ns, "route", "add", "default", "via", "198.18." + r + ".1");
        }
    }

    /**
     * Gives every rank a second interface on a second network: {@code eth1} with {@code 198.19.R.2/24}, joined to the
     * router's {@code vs<R>} ({@code 198.19.R.1}), and a route to 198.19.0.0/16 through it (the default route stays on
     * the first network). A multi-NIC host, as on a cluster with a separate data network.
     */
    void addSecondNetwork() throws IOException {
        for (int r = 0; r < ranks; r++) {
            String ns = rankNamespace(r);
            ip("-n", router(), "link", "add", "vs" + r, "type", "veth", "peer", "name", "eth1", "netns", ns);
            ip("-n", router(), "addr", "add", "198.19." + r + ".1/24", "dev", "vs" + r);
            ip("-n", router(), "link", "set", "vs" + r, "up");
            ip("-n", ns, "addr", "add", secondAddress(r) + "/24", "dev", "eth1");
            ip("-n", ns, "link", "set", "eth1", "up");
            ip("-n", ns, "route", "add", "198.19.0.0/16", "via", "198.19." + r + ".1");
        }
    }

    /** {@code rank}'s address on the second network ({@link #addSecondNetwork}). */
    String secondAddress(int rank) {
        return "198.19." + rank + ".2";
    }

    /**
     * On the first network (198.18.0.0/16), the router forwards only TCP connections to port {@code allowedTcpPort}
     * (and their answers): every UDP packet, and every new TCP connection to another port, is dropped. Skips the test
     * without nft.
     *
     * @return the rules, for the log
     */
    String firstNetworkOnlyTcp(int allowedTcpPort) throws IOException {
        assume(tools.nft() != null, "no nft to filter the first network");
        ensureTable();
        String rules = "insert rule " + TABLE + " forward ip daddr 198.18.0.0/16 meta l4proto udp counter drop; "
                + "insert rule " + TABLE + " forward ip daddr 198.18.0.0/16 tcp dport != " + allowedTcpPort
                + " tcp flags & (syn | ack) == syn counter drop";
        inNamespace(router(), tools.nft().toString(), rules);
        return rules;
    }

    /** The router namespace, where the seed runs. */
    String router() {
        return id + "-rt";
    }

    /** The router's address that every rank can reach (its side of rank 0's link). */
    String routerAddress() {
        return "198.18.0.1";
    }

    String rankNamespace(int rank) {
        return id + "-r" + rank;
    }

    String rankAddress(int rank) {
        return "198.18." + rank + ".2";
    }

    /**
     * Delays every packet forwarded between ranks by {@code delay} and drops a fraction {@code loss} of them,
     * seeded: an nftables (or, where the kernel lacks nft's queue expression, iptables) rule in the router's forward
     * chain hands every forwarded packet to netfilter queue 0, served by {@code scripts/netns/nfq_delay.py}. Skips
     * the test if no queue can be installed or bound. Returns the delayer process (it ends with the lab).
     */
    LabProcess impair(Duration delay, double loss, long seed) throws IOException, InterruptedException {
        assume(tools.python() != null, "no python3 for the userspace delayer (scripts/netns/nfq_delay.py)");
        Path script = scripts().resolve("nfq_delay.py");
        assume(Files.isRegularFile(script), "no " + script + " (set -Dnexar.netns.scripts)");
        String how = queueRule();
        LabProcess delayer = start(router(), "delayer", List.of(tools.python().toString(), script.toString(),
                "--queue", "0", "--delay-ms", String.valueOf(delay.toNanos() / 1e6), "--loss", String.valueOf(loss),
                "--seed", String.valueOf(seed), "--timeout", "900"), Map.of());
        var ready = delayer.awaitLine(l -> l.startsWith("ready ") || l.startsWith("unsupported:"),
                Duration.ofSeconds(20));
        if (ready.isPresent() && ready.get().text().startsWith("unsupported:")) {
            delayer.awaitExit(Duration.ofSeconds(5));
            assume(false, "netfilter queue: " + ready.get().text());
        }
        if (ready.isEmpty()) {
            throw new IllegalStateException("the delayer did not start within 20 s:\n" + delayer.output());
        }
        System.out.println("lab: links impaired (" + how + "): delay " + delay.toMillis() + " ms, loss " + loss
                + ", seed " + seed);
        return delayer;
    }

    private String queueRule() throws IOException {
        var errors = new ArrayList<String>();
        if (tools.nft() != null) {
            ensureTable();
            var r = inNamespaceResult(router(), tools.nft().toString(), "add rule " + TABLE + " forward queue num 0");
            if (r.code() == 0) {
                return "nft queue num 0";
            }
            errors.add("nft: " + r.output().strip());
        }
        if (tools.iptables() != null) {
            var r = inNamespaceResult(router(), tools.iptables().toString(), "-A", "FORWARD", "-j", "NFQUEUE",
                    "--queue-num", "0");
            if (r.code() == 0) {
                return "iptables -j NFQUEUE --queue-num 0";
            }
            errors.add("iptables: " + r.output().strip());
        }
        assume(false, errors.isEmpty() ? "neither nft nor iptables is installed"
                : "cannot add a netfilter queue rule: " + String.join("; ", errors));
        throw new AssertionError("unreachable");
    }

    /**
     * Drops every packet forwarded to or from {@code rank}'s namespace, in one nftables transaction (iptables when
     * nft is missing). The rank's processes keep running; they and their peers just stop hearing each other.
     *
     * @return the command that did it, for the log
     */
    String isolate(int rank) throws IOException {
        String address = rankAddress(rank);
        if (tools.nft() != null) {
            ensureTable();
            inNamespace(router(), tools.nft().toString(), "insert rule " + TABLE + " forward ip saddr " + address
                    + " counter drop; insert rule " + TABLE + " forward ip daddr " + address + " counter drop");
            return "nft: drop ip saddr/daddr " + address + " in the router's forward chain";
        }
        assume(tools.iptables() != null, "neither nft nor iptables is installed");
        inNamespace(router(), tools.iptables().toString(), "-I", "FORWARD", "-s", address, "-j", "DROP");
        inNamespace(router(), tools.iptables().toString(), "-I", "FORWARD", "-d", address, "-j", "DROP");
        return "iptables: DROP -s/-d " + address + " in the router's FORWARD chain";
    }

    /** The router's firewall rules with their counters (for the log), or what listing them said. */
    String rules() throws IOException {
        var sb = new StringBuilder();
        if (tools.nft() != null) {
            sb.append(inNamespaceResult(router(), tools.nft().toString(), "list ruleset").output());
        } else if (tools.iptables() != null) {
            sb.append(inNamespaceResult(router(), tools.iptables().toString(), "-L", "FORWARD", "-v", "-n").output());
        }
        return sb.toString();
    }

    private boolean tableReady;

    private void ensureTable() throws IOException {
        if (!tableReady) {
            inNamespace(router(), tools.nft().toString(), "add table " + TABLE + "; add chain " + TABLE
                    + " forward { type filter hook forward priority 0; policy accept; }");
            tableReady = true;
        }
    }

    /** Starts {@code command} in namespace {@code ns}; the lab kills it on close if it is still running. */
    LabProcess start(String ns, String name, List<String> command, Map<String, String> env) throws IOException {
        var full = new ArrayList<String>(List.of(tools.ip().toString(), "netns", "exec", ns));
        full.addAll(command);
        // `ip netns exec` execs the command in place: the PID is the program's own, so killing it leaves nothing.
        LabProcess p = LabProcess.start(name, full, env);
        synchronized (processes) {
            processes.add(p);
        }
        return p;
    }

    private static Path scripts() {
        String configured = System.getProperty("nexar.netns.scripts");
        if (configured != null) {
            return Path.of(configured);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("scripts/netns"))) {
                return dir.resolve("scripts/netns");
            }
        }
        return Path.of("scripts/netns");
    }

    // ---------------------------------------------------------------------------------------------- commands

    private record Result(int code, String output) {
    }

    private void ip(String... args) throws IOException {
        var cmd = new ArrayList<String>();
        cmd.add(tools.ip().toString());
        cmd.addAll(List.of(args));
        check(cmd, command(cmd));
    }

    private void inNamespace(String ns, String... args) throws IOException {
        var cmd = new ArrayList<String>(List.of(tools.ip().toString(), "netns", "exec", ns));
        cmd.addAll(List.of(args));
        check(cmd, command(cmd));
    }

    private Result inNamespaceResult(String ns, String... args) throws IOException {
        var cmd = new ArrayList<String>(List.of(tools.ip().toString(), "netns", "exec", ns));
        cmd.addAll(List.of(args));
        return command(cmd);
    }

    private static void check(List<String> cmd, Result r) {
        if (r.code() != 0) {
            throw new IllegalStateException("`" + String.join(" ", cmd) + "` exited with " + r.code() + ": "
                    + r.output().strip());
        }
    }

    /**
     * Runs a short command to completion (bounded), returning its exit code and merged output. Not interruptible,
     * so that clean-up still completes when a test's timeout interrupts it; an interrupt is kept for the caller.
     */
    private static Result command(List<String> cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        var output = new FutureTask<>(() -> new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        Thread.ofVirtual().name("lab-command-output").start(output);
        boolean interrupted = false;
        long deadline = System.nanoTime() + COMMAND_TIMEOUT.toNanos();
        try {
            while (true) {
                try {
                    if (!p.waitFor(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)) {
                        p.destroyForcibly();
                        throw new IllegalStateException("`" + String.join(" ", cmd) + "` still running after "
                                + COMMAND_TIMEOUT + "; killed it");
                    }
                    return new Result(p.exitValue(), output.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS));
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException | TimeoutException e) {
                    return new Result(p.exitValue(), "(output unreadable: " + e + ")");
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    // ---------------------------------------------------------------------------------------------- clean-up

    /**
     * Kills every process started here (by PID), deletes every namespace, and checks that none of them is listed
     * any more.
     *
     * @throws IllegalStateException listing what could not be cleaned up
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        var problems = new ArrayList<String>();
        List<LabProcess> started;
        synchronized (processes) {
            started = List.copyOf(processes).reversed();
        }
        for (LabProcess p : started) {
            try {
                p.close();
            } catch (RuntimeException e) {
                problems.add(e.getMessage());
            }
        }
        for (String ns : namespaces.reversed()) {
            var pids = command(List.of(tools.ip().toString(), "netns", "pids", ns));
            if (!pids.output().isBlank()) {
                problems.add("processes left in " + ns + ": " + pids.output().strip().replace('\n', ' '));
            }
            var del = command(List.of(tools.ip().toString(), "netns", "del", ns));
            if (del.code() != 0) {
                problems.add("ip netns del " + ns + ": " + del.output().strip());
            }
        }
        List<String> left = listed(tools).stream().filter(n -> n.startsWith(id + "-")).toList();
        if (!left.isEmpty()) {
            problems.add("namespaces still listed: " + left);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // Called from the hook itself while the JVM shuts down.
        }
        if (!problems.isEmpty()) {
            throw new IllegalStateException("lab " + id + " clean-up: " + String.join("; ", problems));
        }
        if (!namespaces.isEmpty()) {
            System.out.println("lab: " + id + " removed (" + namespaces.size() + " namespaces, " + started.size()
                    + " processes)");
        }
    }

    private void closeQuietly() {
        try {
            close();
        } catch (Exception e) {
            System.err.println("lab: " + e.getMessage());
        }
    }

    /** Removes namespaces of earlier runs whose JVM is gone and in which nothing runs any more. */
    private static void removeStale(Tools tools) throws IOException {
        for (String ns : listed(tools)) {
            var m = OURS.matcher(ns);
            if (!m.matches() || ProcessHandle.of(Long.parseLong(m.group(1), 16)).isPresent()) {
                continue;
            }
            if (command(List.of(tools.ip().toString(), "netns", "pids", ns)).output().isBlank()) {
                command(List.of(tools.ip().toString(), "netns", "del", ns));
                System.out.println("lab: removed stale namespace " + ns + " (its test JVM is gone)");
            }
        }
    }

    private static List<String> listed(Tools tools) throws IOException {
        var r = command(List.of(tools.ip().toString(), "netns", "list"));
        return r.output().lines().map(l -> l.split("\\s+")[0]).filter(s -> !s.isEmpty()).toList();
    }

    // ---------------------------------------------------------------------------------------------- environment

    private static void assume(boolean condition, String reason) {
        if (!condition) {
            System.out.println("lab: skipped: " + reason);
        }
        Assumptions.assumeTrue(condition, reason);
    }

    private static long effectiveUid() throws IOException {
        Path status = Path.of("/proc/self/status");
        if (!Files.isReadable(status)) {
            return -1;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("Uid:")) {
                return Long.parseLong(line.split("\\s+")[2]);
            }
        }
        return -1;
    }

    /** The executable {@code name} on PATH or in the usual system directories (PATH may lack the sbin ones). */
    private static Path which(String name) {
        var dirs = new ArrayList<String>();
        String path = System.getenv("PATH");
        if (path != null) {
            dirs.addAll(List.of(path.split(":")));
        }
        dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
        for (String dir : dirs) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, name);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }
}
