package io.nexar;

/**
 * The ports a listener may bind (setting {@link ConfigKey#PORT_RANGE}): {@code first} to {@code last}, both
 * included, or {@link #ANY}, a free port chosen when the process joins. Written {@code 0}, {@code PORT} or
 * {@code FIRST-LAST}, for example {@code 40000-40100}.
 *
 * @param first the lowest port, 1 to 65535 (0 only in {@link #ANY})
 * @param last the highest port, {@code first} to 65535 (0 only in {@link #ANY})
 */
public record PortRange(int first, int last) {
    /** Any free port: the text {@code 0}. */
    public static final PortRange ANY = new PortRange(0, 0);

    /** What the text of a range looks like, completing "expected ...". */
    static final String EXPECTED = "a port such as 40000, a range such as 40000-40100 (ports 1 to 65535) or 0 for any";

    /**
     * Checks the bounds.
     *
     * @throws IllegalArgumentException if the range is neither {@link #ANY} nor inside 1..65535 with
     *         {@code first <= last}
     */
    public PortRange {
        boolean any = first == 0 && last == 0;
        if (!any && (first < 1 || last > 65_535 || first > last)) {
            throw new IllegalArgumentException("ports " + first + "-" + last + " are not a range inside 1-65535");
        }
    }

    /**
     * Parses {@code 0}, {@code PORT} or {@code FIRST-LAST}.
     *
     * @param text the range as written; blanks around it and around the dash are ignored
     * @return the range
     * @throws IllegalArgumentException if the text is not one of those forms or a port is outside 1..65535
     */
    public static PortRange parse(String text) {
        String s = text.strip();
        int dash = s.indexOf('-');
        try {
            if (dash < 0) {
                int port = Integer.parseInt(s);
                return port == 0 ? ANY : new PortRange(port, port);
            }
            return new PortRange(Integer.parseInt(s.substring(0, dash).strip()),
                    Integer.parseInt(s.substring(dash + 1).strip()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("\"" + text + "\" is not " + EXPECTED, e);
        }
    }

    /**
     * Whether any free port will do.
     *
     * @return true for {@link #ANY}
     */
    public boolean isAny() {
        return first == 0;
    }

    /**
     * The number of ports in the range.
     *
     * @return {@code last - first + 1}; 0 for {@link #ANY}
     */
    public int size() {
        return isAny() ? 0 : last - first + 1;
    }

    /**
     * The range as {@link #parse} reads it.
     *
     * @return {@code 0}, {@code PORT} or {@code FIRST-LAST}
     */
    @Override
    public String toString() {
        return isAny() ? "0" : first == last ? Integer.toString(first) : first + "-" + last;
    }
}
