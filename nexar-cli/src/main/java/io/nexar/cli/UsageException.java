package io.nexar.cli;

/**
 * A command line that cannot run as given (a missing jar, a main class that is not on the class path, flags that
 * exclude each other): the command prints the message and one hint line and exits with {@link ExitCodes#USAGE}.
 */
final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }
}
