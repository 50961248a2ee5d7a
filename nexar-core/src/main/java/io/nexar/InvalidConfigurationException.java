package io.nexar;

/**
 * A configuration value is invalid. The message names where it came from (environment variable, system property or
 * builder), the value and the expected form, for example
 * {@code NEXAR_P2P_TIMEOUT="30x": expected a duration such as 500ms or 30s}.
 */
public final class InvalidConfigurationException extends NexarException {
    private static final long serialVersionUID = 1L;
    private final String setting;
    private final String value;

    /**
     * @param setting the name as the user wrote it: an environment variable, a system property or a builder method
     * @param value the offending value as text
     * @param expected what was expected
     */
    public InvalidConfigurationException(String setting, String value, String expected) {
        super(ErrorContext.of(Operation.CONFIGURE), "failed: " + setting + "=\"" + value + "\": expected " + expected,
                null);
        this.setting = setting;
        this.value = value;
    }

    /** The setting's name as the user wrote it. */
    public String setting() {
        return setting;
    }

    /** The offending value. */
    public String value() {
        return value;
    }

    @Override
    public ErrorCode code() {
        return ErrorCode.INVALID_ARGUMENT;
    }
}
