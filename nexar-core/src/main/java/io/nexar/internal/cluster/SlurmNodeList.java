package io.nexar.internal.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Slurm's compressed host lists ({@code SLURM_JOB_NODELIST}, {@code SLURM_STEP_NODELIST}), as {@code scontrol show
 * hostnames} expands them: hosts separated by commas, each with bracketed ranges that keep their zero padding.
 *
 * <pre>
 * node01                       -&gt; node01
 * node[01-03,07],login1        -&gt; node01 node02 node03 node07 login1
 * rack[1-2]-n[8-9]             -&gt; rack1-n8 rack1-n9 rack2-n8 rack2-n9
 * </pre>
 *
 * Stateless.
 */
public final class SlurmNodeList {

    /** Most hosts {@link #expand} returns; a longer list is refused rather than allocated. */
    public static final int MAX_HOSTS = 1 << 20;

    private SlurmNodeList() {
    }

    /**
     * The first host of {@code list}: where rank 0 of a Slurm step runs when tasks are placed in node order (the
     * default block distribution), so the seed's host when {@code MASTER_ADDR} is not set.
     *
     * @throws IllegalArgumentException if {@code list} is empty or malformed, naming what is wrong
     */
    public static String first(String list) {
        String head = split(list).getFirst();
        var out = new ArrayList<String>();
        expandOne(head, 0, "", out, 1);
        return out.getFirst();
    }

    /**
     * Every host of {@code list}, in order.
     *
     * @throws IllegalArgumentException if {@code list} is empty or malformed, or names more than {@link #MAX_HOSTS}
     */
    public static List<String> expand(String list) {
        var out = new ArrayList<String>();
        for (String part : split(list)) {
            expandOne(part, 0, "", out, MAX_HOSTS);
        }
        return List.copyOf(out);
    }

    /** The top-level comma-separated parts: commas inside brackets separate ranges, not hosts. */
    private static List<String> split(String list) {
        Objects.requireNonNull(list, "list");
        String s = list.strip();
        if (s.isEmpty()) {
            throw new IllegalArgumentException("host list is empty");
        }
        var parts = new ArrayList<String>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '[') {
                if (++depth > 1) {
                    throw new IllegalArgumentException("host list \"" + s + "\" nests brackets at " + i);
                }
            } else if (c == ']') {
                if (--depth < 0) {
                    throw new IllegalArgumentException("host list \"" + s + "\" has an unopened ']' at " + i);
                }
            } else if (c == ',' && depth == 0) {
                parts.add(s.substring(start, i));
                start = i + 1;
            }
        }
        if (depth != 0) {
            throw new IllegalArgumentException("host list \"" + s + "\" has an unclosed '['");
        }
        parts.add(s.substring(start));
        for (String p : parts) {
            if (p.isBlank()) {
                throw new IllegalArgumentException("host list \"" + s + "\" has an empty host name");
            }
        }
        return parts;
    }

    /** Appends the hosts of one part (prefix, then each bracket group in turn) until {@code out} has {@code max}. */
    private static void expandOne(String part, int from, String prefix, List<String> out, int max) {
        int open = part.indexOf('[', from);
        if (open < 0) {
            if (out.size() >= max) {
                if (max == MAX_HOSTS) {
                    throw new IllegalArgumentException("host list names more than " + MAX_HOSTS + " hosts");
                }
                return;
            }
            out.add(prefix + part.substring(from));
            return;
        }
        int close = part.indexOf(']', open);
        String head = prefix + part.substring(from, open);
        for (String range : part.substring(open + 1, close).split(",", -1)) {
            int dash = range.indexOf('-');
            String lo = dash < 0 ? range : range.substring(0, dash);
            String hi = dash < 0 ? range : range.substring(dash + 1);
            if (!digits(lo) || !digits(hi)) {
                throw new IllegalArgumentException("host list range \"" + range + "\" in \"" + part
                        + "\" is not N or N-M with decimal N and M");
            }
            long a = Long.parseLong(lo);
            long b = Long.parseLong(hi);
            if (b < a) {
                throw new IllegalArgumentException("host list range \"" + range + "\" in \"" + part
                        + "\" ends before it starts");
            }
            for (long n = a; n <= b; n++) {
                if (out.size() >= max && max != MAX_HOSTS) {
                    return;
                }
                String number = String.valueOf(n);
                String padded = "0".repeat(Math.max(0, lo.length() - number.length())) + number;
                expandOne(part, close + 1, head + padded, out, max);
            }
        }
    }

    private static boolean digits(String s) {
        if (s.isEmpty() || s.length() > 18) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }
}
