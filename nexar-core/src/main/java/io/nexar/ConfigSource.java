package io.nexar;

/**
 * Where a configuration value came from, reported by {@link NexarConfig#source(ConfigKey)} and
 * {@link NexarConfig#describe()}. Listed from lowest to highest precedence.
 */
public enum ConfigSource {
    /** The built-in default of the key ({@link ConfigKey#defaultValue()}). */
    DEFAULT,
    /** An environment variable ({@link ConfigKey#envVar()}). */
    ENVIRONMENT,
    /** A system property ({@link ConfigKey#systemProperty()}). */
    SYSTEM_PROPERTY,
    /** A {@link NexarConfig.Builder} call (a typed setter or {@link NexarConfig.Builder#set}), or a {@code nexar} flag that sets one key ({@code bench --algo}). */
    BUILDER;

    /** The name the user wrote the key's value under, as error messages show it. */
    String settingName(ConfigKey key) {
        return switch (this) {
            case ENVIRONMENT -> key.envVar();
            case SYSTEM_PROPERTY -> key.systemProperty();
            case DEFAULT, BUILDER -> key.key();
        };
    }

    /** This source of a key as {@link NexarConfig#describe()} prints it, for example {@code env NEXAR_P2P_TIMEOUT}. */
    String describe(ConfigKey key) {
        return switch (this) {
            case DEFAULT -> "default";
            case ENVIRONMENT -> "env " + key.envVar();
            case SYSTEM_PROPERTY -> "system property " + key.systemProperty();
            case BUILDER -> "builder";
        };
    }
}
