package io.nexar.cli;

/** The exit codes of the nexar command, listed in {@code nexar --help}. */
final class ExitCodes {
    /** Success. */
    static final int OK = 0;
    /** The job ran and failed: a check did not pass, a rank failed, an operation timed out. */
    static final int FAILED = 1;
    /** Bad command line (unknown flag, missing argument, no such jar or main class). */
    static final int USAGE = 2;
    /** Bad or unknown configuration (environment variable, system property) or a bad flag value. */
    static final int CONFIG = 3;

    static final String HELP = """
            Exit codes:
              0  success
              1  the job failed: a check did not pass, a rank failed, a timeout
              2  usage error: unknown option, missing argument, no such jar
                 or main class
              3  invalid configuration: a bad or unknown NEXAR_* variable or
                 nexar.* property, or a bad flag value""";

    private ExitCodes() {
    }
}
