package io.rdmaflux.pipeline.config;

/** Whole numbers in a range. */
final class IntegerType implements ValueType<Integer> {

    private final int min;
    private final int max;

    IntegerType(int min, int max) {
        if (min > max) {
            throw new IllegalArgumentException("min > max");
        }
        this.min = min;
        this.max = max;
    }

    @Override
    public String name() {
        return "integer " + min + (min >= 0 ? "-" : "..") + max;
    }

    @Override
    public String description() {
        return min >= 0 ? "an integer " + min + "-" + max : "an integer from " + min + " to " + max;
    }

    @Override
    public Integer parse(String text) {
        String t = text.trim();
        // ASCII digits with an optional minus, as SizeType reads sizes: Long.parseLong alone
        // would take "+22" and other scripts' digits ("\u0667\u0666\u0669\u0661" as 7691).
        if (!t.matches("-?[0-9]+")) {
            throw new IllegalArgumentException("not an integer");
        }
        long v;
        try {
            v = Long.parseLong(t);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("out of range", e);
        }
        if (v < min || v > max) {
            throw new IllegalArgumentException("out of range");
        }
        return (int) v;
    }
}
