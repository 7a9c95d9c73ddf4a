package io.rdmaflux.channel;

import java.time.Duration;

/**
 * The checks the channel's builders run in each setter, so that a bad value fails where it is
 * given, with an {@link IllegalArgumentException} that names the option.
 */
final class Check {

    private Check() {
    }

    static <T> T notNull(T value, String option) {
        if (value == null) {
            throw new IllegalArgumentException(option + " must not be null");
        }
        return value;
    }

    static String notBlank(String value, String option) {
        if (notNull(value, option).isBlank()) {
            throw new IllegalArgumentException(option + " must not be blank");
        }
        return value;
    }

    static byte[] key(byte[] key) {
        if (notNull(key, "key").length == 0) {
            throw new IllegalArgumentException("key must not be empty");
        }
        return key.clone();
    }

    static int between(int value, int min, int max, String option) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(option + " must be between " + min + " and " + max + ", was " + value);
        }
        return value;
    }

    static int atLeast(int value, int min, String option) {
        if (value < min) {
            throw new IllegalArgumentException(option + " must be at least " + min + ", was " + value);
        }
        return value;
    }

    static Duration notNegative(Duration value, String option) {
        if (notNull(value, option).isNegative()) {
            throw new IllegalArgumentException(option + " must not be negative, was " + value);
        }
        return value;
    }

    static Duration positive(Duration value, String option) {
        if (notNull(value, option).isNegative() || value.isZero()) {
            throw new IllegalArgumentException(option + " must be positive, was " + value);
        }
        return value;
    }
}
