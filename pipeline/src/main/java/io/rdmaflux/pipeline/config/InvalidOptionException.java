package io.rdmaflux.pipeline.config;

/**
 * A plugin refused its options (two that exclude each other, a key file that cannot be read):
 * thrown by a plugin's checks, reported by the loader as one line with the file, line and key.
 */
public final class InvalidOptionException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String option;

    /**
     * @param option  the option at fault (its line is reported), or null for the plugin as a whole
     * @param message what is wrong, for a person
     */
    public InvalidOptionException(String option, String message) {
        super(message);
        this.option = option;
    }

    /** The option at fault, or null for the plugin as a whole. */
    public String option() {
        return option;
    }
}
