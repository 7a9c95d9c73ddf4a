package io.rdmaflux.cli;

/** A mistake in the command line; reported in one line with exit code 64. */
final class UsageException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    UsageException(String message) {
        super(message);
    }
}
