package io.rdmaflux.pipeline.config;

import java.util.List;
import java.util.Locale;

/** One of a fixed set of words. */
final class EnumType implements ValueType<String> {

    private final List<String> values;

    EnumType(List<String> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("no values");
        }
        this.values = List.copyOf(values);
    }

    @Override
    public String name() {
        return String.join("|", values);
    }

    @Override
    public String description() {
        return "one of " + String.join(", ", values);
    }

    @Override
    public String parse(String text) {
        String v = text.trim().toLowerCase(Locale.ROOT);
        if (!values.contains(v)) {
            throw new IllegalArgumentException("not one of the values");
        }
        return v;
    }
}
