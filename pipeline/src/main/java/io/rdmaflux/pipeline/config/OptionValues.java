package io.rdmaflux.pipeline.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The checked values of one plugin's options: those given in the configuration, parsed by
 * their types, and the defaults of the others, with the environment of the run they are for
 * (a plugin that reads a variable, such as a key's, reads it there: a warm agent's session has
 * its own, not its JVM's). Immutable.
 */
public final class OptionValues {

    private final List<OptionSpec<?>> specs;
    private final Map<String, Object> given;
    private final Map<String, String> environment;

    private OptionValues(List<OptionSpec<?>> specs, Map<String, Object> given, Map<String, String> environment) {
        this.specs = List.copyOf(specs);
        this.given = Collections.unmodifiableMap(new LinkedHashMap<>(given));
        this.environment = Objects.requireNonNull(environment, "environment");
    }

    /**
     * Values for {@code specs}, with {@code given} holding parsed values by option name (each of
     * the option's Java type). Checks nothing beyond that: validation produced the values.
     */
    public static OptionValues of(List<OptionSpec<?>> specs, Map<String, Object> given) {
        return of(specs, given, System.getenv());
    }

    /** {@link #of(List, Map)} for a run in the environment {@code environment}. */
    public static OptionValues of(List<OptionSpec<?>> specs, Map<String, Object> given, Map<String, String> environment) {
        for (String key : given.keySet()) {
            if (specs.stream().noneMatch(s -> s.name().equals(key))) {
                throw new IllegalArgumentException("no option '" + key + "'");
            }
        }
        return new OptionValues(specs, given, environment);
    }

    /** The environment of the run these values are for: this process's, or a warm agent session's. */
    public Map<String, String> environment() {
        return environment;
    }

    /** The value given, or the option's default (null when it has none). */
    @SuppressWarnings("unchecked")
    public <T> T get(OptionSpec<T> option) {
        Objects.requireNonNull(option, "option");
        if (!specs.contains(option)) {
            throw new IllegalArgumentException("not an option of this plugin: " + option.name());
        }
        Object v = given.get(option.name());
        return v != null ? (T) v : option.defaultValue();
    }

    /** Whether the option was given (as opposed to defaulted). */
    public boolean isSet(OptionSpec<?> option) {
        return given.containsKey(option.name());
    }

    /**
     * An error about {@code option}'s value, for a plugin's cross-option checks: the
     * configuration loader reports it as one line naming the file, the option's line and key.
     */
    public static InvalidOptionException invalid(OptionSpec<?> option, String message) {
        return new InvalidOptionException(option == null ? null : option.name(), message);
    }
}
