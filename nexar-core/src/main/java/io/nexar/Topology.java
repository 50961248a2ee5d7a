package io.nexar;

import java.util.Locale;

/**
 * Which ranks hold a direct connection to which (setting {@link ConfigKey#TOPOLOGY}); a message to a rank that is not
 * a neighbour is relayed along the shortest path (docs/protocol.md, "Relay").
 *
 * @param kind the shape of the neighbour graph
 * @param degree for {@link Kind#K_REGULAR}, the number of neighbours K of each rank (at least 2); otherwise 0
 */
public record Topology(Kind kind, int degree) {

    /** The shapes of neighbour graph. */
    public enum Kind {
        /** Every rank is connected to every other rank (the default). */
        FULL_MESH,
        /** Each rank has K neighbours: a ring plus chords (a circulant graph), connected for every world size. */
        K_REGULAR,
        /** Rank r is connected to r XOR 2^i; the world size must be a power of two. */
        HYPERCUBE
    }

    /** The largest K of {@code k-regular:K}. */
    public static final int MAX_DEGREE = 65535;

    /** The default: every rank connected to every other. */
    public static final Topology FULL_MESH = new Topology(Kind.FULL_MESH, 0);

    /** Rank r connected to r XOR 2^i. */
    public static final Topology HYPERCUBE = new Topology(Kind.HYPERCUBE, 0);

    /**
     * Checks the fields.
     *
     * @param kind the shape
     * @param degree K for {@link Kind#K_REGULAR} (2 to {@link #MAX_DEGREE}), 0 otherwise
     * @throws IllegalArgumentException if the degree does not fit the kind
     * @throws NullPointerException if kind is null
     */
    public Topology {
        java.util.Objects.requireNonNull(kind, "kind");
        if (kind == Kind.K_REGULAR ? degree < 2 || degree > MAX_DEGREE : degree != 0) {
            throw new IllegalArgumentException("degree " + degree + " does not fit topology " + kind);
        }
    }

    /**
     * A K-regular topology.
     *
     * @param k the number of neighbours of each rank, 2 to {@link #MAX_DEGREE}
     * @return {@code k-regular:k}
     * @throws IllegalArgumentException if k is out of range
     */
    public static Topology kRegular(int k) {
        return new Topology(Kind.K_REGULAR, k);
    }

    /**
     * Parses the setting's text: {@code full-mesh}, {@code k-regular:K} or {@code hypercube} (case-insensitive).
     *
     * @param text the value as written
     * @return the topology
     * @throws IllegalArgumentException naming what was expected, if the text is none of these
     */
    public static Topology parse(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        if (t.equals("full-mesh")) {
            return FULL_MESH;
        }
        if (t.equals("hypercube")) {
            return HYPERCUBE;
        }
        if (t.startsWith("k-regular:")) {
            String k = t.substring("k-regular:".length());
            if (!k.isEmpty() && k.length() <= 6 && k.chars().allMatch(Character::isDigit)) {
                int degree = Integer.parseInt(k);
                if (degree >= 2 && degree <= MAX_DEGREE) {
                    return kRegular(degree);
                }
            }
        }
        throw new IllegalArgumentException(EXPECTED);
    }

    /** What {@link #parse} accepts, completing "expected ...". */
    static final String EXPECTED = "full-mesh, hypercube or k-regular:K with K from 2 to " + MAX_DEGREE;

    /** {@return the setting's text, which {@link #parse} reads back: full-mesh, k-regular:K or hypercube} */
    @Override
    public String toString() {
        return switch (kind) {
            case FULL_MESH -> "full-mesh";
            case K_REGULAR -> "k-regular:" + degree;
            case HYPERCUBE -> "hypercube";
        };
    }
}
