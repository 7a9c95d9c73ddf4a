package io.rdmaflux.pipeline.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The type of an option's value: how its text is parsed and checked, and how it is described
 * in errors, {@code rdflux plugins} and the generated reference. Every value is written as text
 * (a YAML scalar, an environment variable's value); lists are written as YAML sequences.
 *
 * <p>{@link #parse} throws {@link IllegalArgumentException} when the text is not a value of
 * this type; callers report {@code expected <description>, got '<text>'}, so the exception's
 * message is not shown.
 *
 * @param <T> the Java type of a parsed value
 */
public interface ValueType<T> {

    /** What a value of this type looks like, after "expected": "an integer 1-65535". */
    String description();

    /** A short name for tables: "integer", "size", "duration"... */
    String name();

    /** Parses one value; throws IllegalArgumentException when {@code text} is not one. */
    T parse(String text);

    /**
     * {@link #parse} in the environment {@code env} of the run the value is for (where a path's
     * ~ leads: a warm agent's session has its own HOME, not its JVM's). Types that read no
     * environment need not override it.
     */
    default T parse(String text, java.util.Map<String, String> env) {
        return parse(text);
    }

    /** A value as it would be written in a pipeline file (for defaults in the reference). */
    default String format(T value) {
        return String.valueOf(value);
    }

    /** Any non-empty text. */
    static ValueType<String> string() {
        return BasicType.STRING;
    }

    /** A whole number from {@code min} to {@code max}, inclusive. */
    static ValueType<Integer> integer(int min, int max) {
        return new IntegerType(min, max);
    }

    /**
     * A number of bytes with an optional binary suffix: {@code 65536}, {@code 64K}, {@code 4M},
     * {@code 1G}, {@code 2T} (also {@code 4MiB}, {@code 4MB}: both mean 4 x 2^20), from
     * {@code min} to {@code max} bytes.
     */
    static ValueType<Long> size(long min, long max) {
        return new SizeType(min, max);
    }

    /** A duration: {@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h}, or a plain number of seconds. */
    static ValueType<Duration> duration() {
        return BasicType.DURATION;
    }

    /** {@code true} or {@code false} (any case; YAML 1.2, so not yes/no/on/off). */
    static ValueType<Boolean> bool() {
        return BasicType.BOOLEAN;
    }

    /**
     * A file system path; a leading {@code ~} or {@code ~/} is replaced by the user's home
     * directory, as a shell would.
     */
    static ValueType<Path> path() {
        return BasicType.PATH;
    }

    /** One of {@code values} (case-insensitive); the value is given back in lower case. */
    static ValueType<String> oneOf(String... values) {
        return new EnumType(List.of(values));
    }

    /** A YAML sequence of values of {@code element}'s type. */
    static <E> ListType<E> list(ValueType<E> element) {
        return new ListType<>(element);
    }

    /** Formats a byte count the way {@link #size} reads it: 1M, 64K, 1500. */
    static String formatSize(long bytes) {
        String[] units = {"", "K", "M", "G", "T"};
        int u = 0;
        long v = bytes;
        while (u < units.length - 1 && v != 0 && v % 1024 == 0) {
            v /= 1024;
            u++;
        }
        return v + units[u];
    }

    /**
     * A byte count as sizes are written everywhere in rdma-flux (pipeline files and the tools'
     * options): 65536, 64K, 4M, 1G, 2T, 4MiB, 4MB.
     *
     * @throws IllegalArgumentException for anything else, and on overflow
     */
    static long parseSize(String text) {
        return SizeType.parseBytes(text);
    }

    /**
     * A duration as durations are written everywhere in rdma-flux (pipeline files and the tools'
     * options): 500ms, 10s, 2m, 1h, or a plain number of seconds.
     *
     * @throws IllegalArgumentException for anything else
     */
    static Duration parseDuration(String text) {
        return BasicType.DURATION.parse(text);
    }

    /** Formats a duration the way {@link #duration} reads it: 10s, 500ms, 5m. */
    static String formatDuration(Duration d) {
        long ms = d.toMillis();
        if (ms == 0) {
            return "0";
        }
        if (ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }
}
