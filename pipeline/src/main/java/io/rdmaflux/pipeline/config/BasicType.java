package io.rdmaflux.pipeline.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The value types without parameters: string, duration, boolean, path. */
class BasicType<T> implements ValueType<T> {

    private static final Pattern DURATION_FORM = Pattern.compile("(\\d{1,9})\\s*(ms|s|m|h)?");

    static final BasicType<String> STRING = new BasicType<>("string", "a string", text -> {
        if (text.isEmpty()) {
            throw new IllegalArgumentException("empty");
        }
        return text;
    }, String::valueOf);

    static final BasicType<Duration> DURATION = new BasicType<>("duration", "a duration such as 500ms, 10s, 5m or 1h",
            BasicType::duration, ValueType::formatDuration);

    static final BasicType<Boolean> BOOLEAN = new BasicType<>("boolean", "true or false", text ->
            switch (text.trim().toLowerCase(Locale.ROOT)) {
                case "true" -> Boolean.TRUE;
                case "false" -> Boolean.FALSE;
                default -> throw new IllegalArgumentException("not a boolean");
            }, String::valueOf);

    static final BasicType<Path> PATH = new BasicType<>("path", "a path", text -> path(text, System.getenv()), Path::toString) {
        @Override
        public Path parse(String text, Map<String, String> env) {
            return path(text, env);
        }
    };

    private final String name;
    private final String description;
    private final Function<String, T> parser;
    private final Function<T, String> formatter;

    private BasicType(String name, String description, Function<String, T> parser, Function<T, String> formatter) {
        this.name = name;
        this.description = description;
        this.parser = parser;
        this.formatter = formatter;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String description() {
        return description;
    }

    @Override
    public T parse(String text) {
        return parser.apply(text);
    }

    @Override
    public String format(T value) {
        return formatter.apply(value);
    }

    @Override
    public String toString() {
        return name;
    }

    private static Duration duration(String text) {
        Matcher m = DURATION_FORM.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofSeconds(n);
        };
    }

    /** A path, with ~ expanded as a shell does ({@link Home}) in {@code env}. */
    private static Path path(String text, Map<String, String> env) {
        if (text.isEmpty() || text.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("not a path");
        }
        return Home.expand(text, env);
    }
}
