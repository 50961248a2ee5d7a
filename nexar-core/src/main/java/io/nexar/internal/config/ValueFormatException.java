package io.nexar.internal.config;

/**
 * A configuration value does not parse. It carries what was expected instead, as a phrase that completes
 * "expected ...", for example {@code a duration such as 500ms or 30s}; the caller knows where the value came from and
 * turns this into an {@link io.nexar.InvalidConfigurationException} naming the variable.
 */
public final class ValueFormatException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    private final String expected;
    private final boolean tooLarge;

    /**
     * @param value the text that did not parse
     * @param expected what was expected, completing "expected ...", for example {@code a size such as 64KiB or 16MiB}
     * @param tooLarge whether the text was well formed but its value exceeds what the type can hold; a setting with
     *        its own upper bound reports that bound instead
     */
    public ValueFormatException(String value, String expected, boolean tooLarge) {
        super("\"" + value + "\": expected " + expected);
        this.expected = expected;
        this.tooLarge = tooLarge;
    }

    /** What was expected, completing "expected ...", for example {@code a duration such as 500ms or 30s}. */
    public String expected() {
        return expected;
    }

    /** Whether the value was well formed but larger than the type can hold (overflow). */
    public boolean tooLarge() {
        return tooLarge;
    }
}
