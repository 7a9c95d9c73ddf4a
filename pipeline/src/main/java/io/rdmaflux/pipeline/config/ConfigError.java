package io.rdmaflux.pipeline.config;

import io.rdmaflux.connector.Text;

/**
 * One problem in a pipeline configuration, printed as one line:
 * {@code pipeline.yaml:7: sink.port: expected an integer 1-65535, got 'abc'}. Keys and values
 * come from the file, so control characters in them are printed as escapes ({@code \x1b}):
 * never raw to the terminal, never a second line.
 *
 * @param file    the file's name as the user gave it, or null for a configuration built in code
 * @param line    the line, counted from 1; 0 when unknown
 * @param key     where in the configuration, such as {@code sink.port} or {@code stages[1].type};
 *                null for the file as a whole
 * @param message what is wrong and, where it helps, what would be right
 */
public record ConfigError(String file, int line, String key, String message) implements Comparable<ConfigError> {

    /** The most characters shown of each part: a 1 MiB value is not worth a 1 MiB line. */
    private static final int MAX_SHOWN = 1000;

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        if (file != null) {
            b.append(Text.escape(file, MAX_SHOWN));
            if (line > 0) {
                b.append(':').append(line);
            }
            b.append(": ");
        }
        if (key != null) {
            b.append(Text.escape(key, MAX_SHOWN)).append(": ");
        }
        return b.append(Text.escape(message, MAX_SHOWN)).toString();
    }

    @Override
    public int compareTo(ConfigError o) {
        return Integer.compare(line, o.line);
    }
}
