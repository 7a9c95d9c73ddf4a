package io.rdmaflux.pipeline.config;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Byte counts with binary suffixes, in a range. */
final class SizeType implements ValueType<Long> {

    // ASCII case-insensitive, not toLowerCase: that maps the Kelvin sign (U+212A) to 'k'
    private static final Pattern FORM = Pattern.compile("(\\d{1,19})\\s*(?:([kmgt])(?:i?b)?|b)?", Pattern.CASE_INSENSITIVE);

    private final long min;
    private final long max;

    SizeType(long min, long max) {
        if (min < 0 || min > max) {
            throw new IllegalArgumentException("bad range");
        }
        this.min = min;
        this.max = max;
    }

    @Override
    public String name() {
        return "size " + ValueType.formatSize(min) + "-" + ValueType.formatSize(max);
    }

    @Override
    public String description() {
        return "a size from " + ValueType.formatSize(min) + " to " + ValueType.formatSize(max) + " (such as 64K or 4M)";
    }

    @Override
    public Long parse(String text) {
        long v = parseBytes(text);
        if (v < min || v > max) {
            throw new IllegalArgumentException("out of range");
        }
        return v;
    }

    @Override
    public String format(Long value) {
        return ValueType.formatSize(value);
    }

    /** 65536, 64K, 4M, 1G, 2T, 4MiB, 4MB; IllegalArgumentException otherwise or on overflow. */
    static long parseBytes(String text) {
        Matcher m = FORM.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a size");
        }
        int shift = m.group(2) == null ? 0 : 10 * ("kmgt".indexOf(Character.toLowerCase(m.group(2).charAt(0))) + 1);
        try {
            long n = Long.parseLong(m.group(1));
            if (shift > 0 && n > (Long.MAX_VALUE >> shift)) {
                throw new IllegalArgumentException("too large");
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("too large", e);
        }
    }
}
