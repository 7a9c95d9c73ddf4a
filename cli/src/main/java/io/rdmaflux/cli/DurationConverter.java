package io.rdmaflux.cli;

import io.rdmaflux.pipeline.config.ValueType;
import java.time.Duration;
import picocli.CommandLine.ITypeConverter;

/** Parses the tools' timeouts as pipeline files write durations: 10s, 500ms, 2m, or a number of seconds. */
final class DurationConverter implements ITypeConverter<Duration> {

    /** How the options' help and errors show the accepted forms. */
    static final String FORMS = "10s, 500ms, 2m, or a number of seconds";

    @Override
    public Duration convert(String value) {
        try {
            return ValueType.parseDuration(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a duration: '" + value + "' (examples: " + FORMS + ")");
        }
    }
}
