package io.nexar;

/**
 * A configuration value is invalid, or a {@code NEXAR_*} environment variable or {@code nexar.*} system property is
 * not a setting nexar knows. The message names where it came from (environment variable, system property or
 * builder), the value and the expected form, for example
 * {@code NEXAR_P2P_TIMEOUT="30x": expected a duration such as 500ms or 30s}; for an unknown name it names the closest
 * known one, for example {@code nexar.p2p.timout is not a nexar setting; did you mean nexar.p2p.timeout?}.
 *
 * <p>What to do: correct or remove the named variable, property or builder value (docs/config.md lists every setting,
 * its form and its bounds) and start again; retrying with the same input cannot help
 * ({@link ErrorCode#INVALID_ARGUMENT}). The {@code nexar} command exits with code 3 on this error.
 */
public final class InvalidConfigurationException extends NexarException {
    private static final long serialVersionUID = 1L;
    /** The name as the user wrote it. */
    private final String setting;
    /** The offending value as text. */
    private final String value;
    /** What was expected, or null for an unknown name. */
    private final String expected;

    /**
     * Creates the exception for an invalid value.
     *
     * @param setting the name as the user wrote it: an environment variable, a system property or a builder method
     * @param value the offending value as text
     * @param expected what was expected
     */
    public InvalidConfigurationException(String setting, String value, String expected) {
        super(ErrorContext.of(Operation.CONFIGURE), "failed: " + setting + "=\"" + value + "\": expected " + expected,
                null);
        this.setting = setting;
        this.value = value;
        this.expected = expected;
    }

    private InvalidConfigurationException(String setting, String value, String detail, Void unknownName) {
        super(ErrorContext.of(Operation.CONFIGURE), "failed: " + detail, null);
        this.setting = setting;
        this.value = value;
        this.expected = null;
    }

    /**
     * An environment variable or system property in nexar's namespace that is not one of its settings.
     *
     * @param kind {@code environment variable} or {@code system property}, for the message
     * @param setting the name as written
     * @param value its value
     * @param suggestion the closest known name, or null
     */
    static InvalidConfigurationException unknownName(String kind, String setting, String value, String suggestion) {
        return new InvalidConfigurationException(setting, value, kind + " " + setting + " is not a nexar setting"
                + (suggestion == null ? "" : "; did you mean " + suggestion + "?")
                + " (docs/config.md lists them)", null);
    }

    /** {@return the setting's name as the user wrote it} */
    public String setting() {
        return setting;
    }

    /** {@return the offending value} */
    public String value() {
        return value;
    }

    /** What was expected, or null for an unknown name. */
    String expected() {
        return expected;
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.INVALID_ARGUMENT;
    }
}
