package io.rdmaflux.pipeline.config;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One option of a plugin, described well enough to validate a value, document it and list it:
 * its kebab-case name, its type, its default (or that it is required), and one line of docs.
 * Immutable.
 *
 * <pre>{@code
 * static final OptionSpec<Path> PATH = OptionSpec.required("path", ValueType.path(), "the file to read");
 * static final OptionSpec<Boolean> FSYNC = OptionSpec.optional("fsync", ValueType.bool(), false,
 *         "sync the file and its directory before reporting success");
 * }</pre>
 *
 * @param <T> the Java type of the value
 */
public final class OptionSpec<T> {

    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9]*(-[a-z0-9]+)*");

    private final String name;
    private final ValueType<T> type;
    private final T defaultValue;
    private final boolean required;
    private final boolean secret;
    private final String doc;

    private OptionSpec(String name, ValueType<T> type, T defaultValue, boolean required, boolean secret, String doc) {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("option names are kebab-case (such as frame-size): '" + name + "'");
        }
        this.name = name;
        this.type = Objects.requireNonNull(type, "type");
        this.defaultValue = defaultValue;
        this.required = required;
        this.secret = secret;
        this.doc = Objects.requireNonNull(doc, "doc");
    }

    /** An option that must be given. */
    public static <T> OptionSpec<T> required(String name, ValueType<T> type, String doc) {
        return new OptionSpec<>(name, type, null, true, false, doc);
    }

    /** An option with a default; {@code defaultValue} may be null for "not set". */
    public static <T> OptionSpec<T> optional(String name, ValueType<T> type, T defaultValue, String doc) {
        return new OptionSpec<>(name, type, defaultValue, false, false, doc);
    }

    /** This option marked secret: its value is never repeated in errors or listings. */
    public OptionSpec<T> secret() {
        return new OptionSpec<>(name, type, defaultValue, required, true, doc);
    }

    /** The key in a pipeline file. */
    public String name() {
        return name;
    }

    public ValueType<T> type() {
        return type;
    }

    /** The value when the option is not given; null when there is none. */
    public T defaultValue() {
        return defaultValue;
    }

    public boolean isRequired() {
        return required;
    }

    public boolean isSecret() {
        return secret;
    }

    /** One line saying what the option does. */
    public String doc() {
        return doc;
    }

    /** The default as it would be written in a pipeline file, or "" when there is none. */
    public String formattedDefault() {
        return defaultValue == null ? "" : type.format(defaultValue);
    }

    @Override
    public String toString() {
        return name + " (" + type.name() + ")";
    }
}
