package io.rdmaflux.pipeline.plugin;

import java.util.List;

/**
 * A value as written, before validation, with where it was written.
 *
 * @param key   its place in the configuration, such as {@code sink.port}
 * @param line  its line, from 1; 0 when built in code
 * @param text  the text of a scalar (environment variables expanded); null for no value, or
 *              when the value is not a scalar
 * @param items the items of a sequence, or null when the value is not one
 * @param shape what the value is when it is neither a scalar nor a sequence ("a mapping"), or null
 */
record RawValue(String key, int line, String text, List<RawValue> items, String shape) {

    static RawValue scalar(String key, int line, String text) {
        return new RawValue(key, line, text, null, null);
    }

    static RawValue list(String key, int line, List<RawValue> items) {
        return new RawValue(key, line, null, List.copyOf(items), null);
    }

    static RawValue other(String key, int line, String shape) {
        return new RawValue(key, line, null, null, shape);
    }

    /** What the value is, for "expected X, got Y". */
    String got(boolean secret) {
        if (shape != null) {
            return shape;
        }
        if (items != null) {
            return "a list";
        }
        if (text == null) {
            return "no value";
        }
        if (secret) {
            return text.isEmpty() ? "an empty value" : "a value not shown here (secret)";
        }
        return "'" + text + "'";
    }
}
