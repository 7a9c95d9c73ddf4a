package io.rdmaflux.pipeline.plugin;

import java.util.Map;

/**
 * A source, filter, stage or sink as written, before validation.
 *
 * @param path    where it is: {@code source}, {@code filters[0]}, {@code stages[0]}, {@code sink}
 * @param line    the line its errors point to when no option is at fault
 * @param type    the {@code type} value, or null when missing
 * @param options the other keys, in the order written
 */
record RawPlugin(String path, int line, RawValue type, Map<String, RawValue> options) {
}
