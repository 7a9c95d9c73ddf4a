package io.rdmaflux.codec;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One element of a codec chain string: {@code name:version} followed by optional
 * {@code ;key=value} parameters, such as {@code zstd:1;level=3} or {@code aes-256-gcm:1}.
 * Parameters are informative for the receiver (the zstd level) or needed by it (a stage's own
 * setting); each stage documents its own.
 *
 * @param name    the stage name
 * @param version the format version
 * @param params  parameters, in order
 */
public record CodecSpec(String name, int version, Map<String, String> params) {

    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9-]{0,31}");
    private static final Pattern KEY = Pattern.compile("[a-z0-9][a-z0-9-]{0,31}");
    private static final Pattern VALUE = Pattern.compile("[A-Za-z0-9._+-]{0,64}");

    public CodecSpec {
        if (name == null || !NAME.matcher(name).matches()) {
            throw bad("invalid codec name '" + name + "'");
        }
        if (version < 0) {
            throw bad("invalid version " + version + " for codec '" + name + "'");
        }
        Map<String, String> copy = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : params.entrySet()) {
            if (!KEY.matcher(e.getKey()).matches() || !VALUE.matcher(e.getValue()).matches()) {
                throw bad("invalid parameter '" + e.getKey() + "=" + e.getValue() + "' for codec '" + name + "'");
            }
            copy.put(e.getKey(), e.getValue());
        }
        params = Collections.unmodifiableMap(copy);
    }

    /** A spec without parameters. */
    public static CodecSpec of(String name, int version) {
        return new CodecSpec(name, version, Map.of());
    }

    /** A copy with one parameter set. */
    public CodecSpec with(String key, String value) {
        Map<String, String> m = new LinkedHashMap<>(params);
        m.put(key, value);
        return new CodecSpec(name, version, m);
    }

    /** A parameter, or {@code fallback} when absent. */
    public String param(String key, String fallback) {
        return params.getOrDefault(key, fallback);
    }

    /** Parses one element such as {@code zstd:1;level=3}. */
    public static CodecSpec parse(String text) {
        String s = text.strip();
        String[] parts = s.split(";", -1);
        String head = parts[0];
        int colon = head.indexOf(':');
        if (colon < 0) {
            throw bad("codec '" + s + "' has no version (expected name:version, such as zstd:1)");
        }
        String name = head.substring(0, colon);
        int version;
        try {
            version = Integer.parseInt(head.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw bad("codec '" + s + "' has an invalid version (expected name:version, such as zstd:1)");
        }
        Map<String, String> params = new LinkedHashMap<>();
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            if (eq <= 0) {
                throw bad("codec '" + s + "' has a malformed parameter '" + parts[i] + "' (expected key=value)");
            }
            params.put(parts[i].substring(0, eq), parts[i].substring(eq + 1));
        }
        return new CodecSpec(name, version, params);
    }

    /** The element as it appears in the chain string. */
    public String format() {
        StringBuilder b = new StringBuilder(name).append(':').append(version);
        params.forEach((k, v) -> b.append(';').append(k).append('=').append(v));
        return b.toString();
    }

    @Override
    public String toString() {
        return format();
    }

    static RdmaFluxException bad(String message) {
        return new RdmaFluxException(ErrorCode.CODEC, message);
    }
}
