package io.rdmaflux.pipeline.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A pipeline configuration that does not validate: every problem found, each a
 * {@link ConfigError} printed as one line. {@code rdflux run} prints them all and exits 78.
 */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final List<ConfigError> errors;

    public ConfigException(List<ConfigError> errors) {
        super(summary(errors));
        List<ConfigError> sorted = new ArrayList<>(errors);
        Collections.sort(sorted);
        this.errors = List.copyOf(sorted);
    }

    /** The problems, in line order. */
    public List<ConfigError> errors() {
        return errors;
    }

    private static String summary(List<ConfigError> errors) {
        if (errors.isEmpty()) {
            throw new IllegalArgumentException("no errors");
        }
        List<ConfigError> sorted = new ArrayList<>(errors);
        Collections.sort(sorted);
        String first = sorted.get(0).toString();
        return errors.size() == 1 ? first : first + " (and " + (errors.size() - 1) + " more)";
    }
}
