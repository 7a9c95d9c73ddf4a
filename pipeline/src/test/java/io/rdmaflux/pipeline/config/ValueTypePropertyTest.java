package io.rdmaflux.pipeline.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.math.BigInteger;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seeded-random properties of the integer, size and duration types (issue 22, property tests).
 * Each failure names the seed and the input, so it can be replayed.
 *
 * <p>The reference models below are written from the documented grammar (user guide, "Value
 * types", and the javadoc of {@link ValueType#size} and {@link ValueType#duration}), with
 * {@link BigInteger} arithmetic instead of the parsers' long shifts: ASCII digits only, ASCII
 * unit letters in any case, ASCII blanks between number and unit, and {@link String#trim}'s
 * ends. Besides the grammar they know the parsers' digit caps (19 for sizes, 9 for durations),
 * which the grammar leaves open.
 */
class ValueTypePropertyTest {

    private static final int CASES = 5_000;

    /** Characters the random strings are made of: the grammars' alphabet and its near misses. */
    private static final String ALPHABET = "0123456789"
            + "\u0660\u0661\u0667\u0669" // Arabic-Indic digits
            + "\u0966\u0967\u096f" // Devanagari digits
            + "\uff10\uff11\uff19" // fullwidth digits
            + "+-.,_eE "
            + "\t\n\u000b\f\r\u0000\u001f\u00a0\u2003" // blanks, controls, non-ASCII spaces
            + "kKmMgGtTiIbBsShHxX"
            + "\u212a\u0130\u0131\u017f"; // Kelvin sign, dotted/dotless i, long s: case-map to ASCII

    private static final BigInteger LONG_MAX = BigInteger.valueOf(Long.MAX_VALUE);

    // ------------------------------------------------------------------ reference models

    /** Strips what {@link String#trim} strips: chars up to U+0020 at both ends. */
    private static String trimmed(String s) {
        int a = 0;
        int b = s.length();
        while (a < b && s.charAt(a) <= ' ') {
            a++;
        }
        while (b > a && s.charAt(b - 1) <= ' ') {
            b--;
        }
        return s.substring(a, b);
    }

    private static final Pattern INT_MODEL = Pattern.compile("-?[0-9]+");
    private static final Pattern SIZE_MODEL =
            Pattern.compile("([0-9]+)[ \\t\\n\\x0B\\f\\r]*([kKmMgGtT](?:[iI]?[bB])?|[bB])?");
    private static final Pattern DURATION_MODEL =
            Pattern.compile("([0-9]+)[ \\t\\n\\x0B\\f\\r]*([mM][sS]|[sSmMhH])?");

    /** The integer the text means within [min, max], or null where it is refused. */
    private static Long integerModel(String text, int min, int max) {
        String t = trimmed(text);
        if (!INT_MODEL.matcher(t).matches()) {
            return null;
        }
        BigInteger v = new BigInteger(t);
        return v.compareTo(BigInteger.valueOf(min)) < 0 || v.compareTo(BigInteger.valueOf(max)) > 0 ? null : v.longValue();
    }

    /** The byte count the text means (no range), or null where it is refused. */
    private static Long sizeModel(String text) {
        Matcher m = SIZE_MODEL.matcher(trimmed(text));
        if (!m.matches() || m.group(1).length() > 19) {
            return null;
        }
        String unit = m.group(2) == null ? "b" : m.group(2).toLowerCase(java.util.Locale.ROOT);
        int power = "bkmgt".indexOf(unit.charAt(0));
        BigInteger v = new BigInteger(m.group(1)).multiply(BigInteger.valueOf(1024).pow(power));
        return v.compareTo(LONG_MAX) > 0 ? null : v.longValue();
    }

    /** The duration the text means, or null where it is refused. */
    private static Duration durationModel(String text) {
        Matcher m = DURATION_MODEL.matcher(trimmed(text));
        if (!m.matches() || m.group(1).length() > 9) {
            return null;
        }
        BigInteger n = new BigInteger(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2).toLowerCase(java.util.Locale.ROOT);
        BigInteger millis = n.multiply(BigInteger.valueOf(switch (unit) {
            case "ms" -> 1;
            case "s" -> 1000;
            case "m" -> 60_000;
            default -> 3_600_000;
        }));
        return Duration.ofMillis(millis.longValueExact());
    }

    // ------------------------------------------------------------------ generators

    /** A string near the grammar: sign, digits (sometimes another script's, sometimes too many), blanks, unit. */
    private static String nearGrammar(Random r) {
        StringBuilder b = new StringBuilder();
        if (r.nextInt(4) == 0) {
            b.append(pick(r, " ", "\t", "\u00a0", "\u0000", "  "));
        }
        if (r.nextInt(4) == 0) {
            b.append(pick(r, "-", "+", "--", "-+"));
        }
        int digits = r.nextInt(8) == 0 ? 15 + r.nextInt(12) : 1 + r.nextInt(r.nextBoolean() ? 3 : 10);
        if (r.nextInt(30) == 0) {
            digits = 0;
        }
        String digitSet = r.nextInt(10) == 0 ? "0123456789\u0660\u0667\uff11\u0966" : "0123456789";
        for (int i = 0; i < digits; i++) {
            b.append(digitSet.charAt(r.nextInt(digitSet.length())));
        }
        if (r.nextInt(10) == 0) {
            b.append(pick(r, ".5", "e3", "E2", ",000", "_000"));
        }
        if (r.nextInt(3) == 0) {
            b.append(pick(r, " ", "\t", "\n", "  ", "\u00a0", "\u2003"));
        }
        if (r.nextInt(3) != 0) {
            b.append(pick(r, "k", "K", "m", "M", "g", "G", "t", "T", "b", "B", "kb", "KiB", "mib", "MB", "gIb", "Tb",
                    "ib", "kib b", "ms", "MS", "s", "S", "h", "H", "min", "x", "\u212a", "\u212aiB", "m\u0130b", "\u017f",
                    "mss", "hs"));
        }
        if (r.nextInt(4) == 0) {
            b.append(pick(r, " ", "\t", "\u0000", "\u00a0", "\r\n"));
        }
        return b.toString();
    }

    /** Any string over the alphabet, up to 12 chars. */
    private static String anyOverAlphabet(Random r) {
        StringBuilder b = new StringBuilder();
        int n = r.nextInt(13);
        for (int i = 0; i < n; i++) {
            b.append(ALPHABET.charAt(r.nextInt(ALPHABET.length())));
        }
        return b.toString();
    }

    private static String randomText(Random r) {
        return r.nextInt(3) == 0 ? anyOverAlphabet(r) : nearGrammar(r);
    }

    private static String pick(Random r, String... options) {
        return options[r.nextInt(options.length)];
    }

    private static String blanks(Random r) {
        return pick(r, "", "", " ", "  ", "\t", "\n ");
    }

    /** A long in [min, max], biased to the ends and to small numbers. */
    private static long between(Random r, long min, long max) {
        switch (r.nextInt(6)) {
            case 0:
                return min;
            case 1:
                return max;
            default:
                BigInteger span = BigInteger.valueOf(max).subtract(BigInteger.valueOf(min)).add(BigInteger.ONE);
                BigInteger off = new BigInteger(span.bitLength() + 8, r).mod(span);
                return BigInteger.valueOf(min).add(off).longValueExact();
        }
    }

    private static int[] intRange(Random r) {
        int a = switch (r.nextInt(4)) {
            case 0 -> Integer.MIN_VALUE;
            case 1 -> r.nextInt(100) - 50;
            default -> r.nextInt();
        };
        int b = switch (r.nextInt(4)) {
            case 0 -> Integer.MAX_VALUE;
            case 1 -> r.nextInt(70_000);
            default -> r.nextInt();
        };
        return new int[] {Math.min(a, b), Math.max(a, b)};
    }

    private static long[] sizeRange(Random r) {
        long a = r.nextInt(3) == 0 ? 0 : (r.nextLong() >>> (1 + r.nextInt(62)));
        long b = r.nextInt(3) == 0 ? Long.MAX_VALUE : (r.nextLong() >>> (1 + r.nextInt(62)));
        return new long[] {Math.min(a, b), Math.max(a, b)};
    }

    /** Calls the parser and checks it agrees with the model's answer (null: refused). */
    private static <T> void agrees(ValueType<T> type, String text, T expected, String context) {
        String where = context + ", input '" + escape(text) + "'";
        T actual;
        try {
            actual = type.parse(text);
        } catch (IllegalArgumentException e) {
            // The documented refusal: exactly IllegalArgumentException, not a subclass such as
            // NumberFormatException leaking out of Long.parseLong.
            assertThat(e.getClass()).as(where + ": refusal type").isEqualTo(IllegalArgumentException.class);
            assertThat(expected).as(where + ": refused, the model reads it as").isNull();
            return;
        } catch (RuntimeException e) {
            throw new AssertionError(where + ": threw " + e, e);
        }
        assertThat(actual).as(where + ": parsed").isEqualTo(expected);
    }

    static String escape(String s) {
        StringBuilder b = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c >= 0x20 && c < 0x7f) {
                b.append(c);
            } else {
                b.append(String.format("\\u%04x", (int) c));
            }
        }
        return b.toString();
    }

    // ------------------------------------------------------------------ integers

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1L, 22L, 0x5eedL, -7L})
    void integerWrittenInEachFormParsesBackToItself(long seed) {
        Random r = new Random(seed);
        for (int i = 0; i < CASES; i++) {
            int[] range = intRange(r);
            ValueType<Integer> type = ValueType.integer(range[0], range[1]);
            int v = (int) between(r, range[0], range[1]);
            String zeros = "0".repeat(r.nextInt(3));
            String digits = Long.toString(Math.abs((long) v));
            String written = switch (i % 4) {
                case 0 -> Integer.toString(v);
                case 1 -> blanks(r) + v + blanks(r);
                case 2 -> (v < 0 ? "-" : "") + zeros + digits;
                default -> type.format(v);
            };
            String where = "seed " + seed + ", range " + range[0] + ".." + range[1] + ", input '" + escape(written) + "'";
            assertThat(type.parse(written)).as(where).isEqualTo(v);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {2L, 23L, 0xfeedL, -8L})
    void integerAgreesWithTheModelAndStaysInRange(long seed) {
        Random r = new Random(seed);
        for (int i = 0; i < CASES * 4; i++) {
            int[] range = intRange(r);
            ValueType<Integer> type = ValueType.integer(range[0], range[1]);
            String text = randomText(r);
            Long model = integerModel(text, range[0], range[1]);
            agrees(type, text, model == null ? null : model.intValue(), "seed " + seed + ", range " + range[0] + ".." + range[1]);
        }
    }

    // ------------------------------------------------------------------ sizes

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {3L, 24L, 0xbeefL, -9L})
    void sizeWrittenInEachFormParsesBackToItself(long seed) {
        Random r = new Random(seed);
        String[][] suffixes = {{"", "b", "B", " b"}, {"K", "k", "KiB", "KB", "kb", " K", "\tkib"},
                {"M", "m", "MiB", "MB", " m"}, {"G", "g", "GiB", "gb"}, {"T", "t", "TiB", "TB", " t"}};
        for (int i = 0; i < CASES; i++) {
            long[] range = sizeRange(r);
            ValueType<Long> type = ValueType.size(range[0], range[1]);
            long v = between(r, range[0], range[1]);
            if (r.nextInt(3) == 0) {
                // a multiple of a unit, so the suffixed forms have something to write
                long unit = 1L << (10 * (1 + r.nextInt(4)));
                long rounded = v / unit * unit;
                if (rounded >= range[0]) {
                    v = rounded;
                }
            }
            String where = "seed " + seed + ", range " + range[0] + "-" + range[1] + ", value " + v;
            assertThat(type.parse(type.format(v))).as(where + ", formatted '" + type.format(v) + "'").isEqualTo(v);
            for (int power = 0; power <= 4; power++) {
                long unit = 1L << (10 * power);
                if (v % unit != 0) {
                    break;
                }
                for (String suffix : suffixes[power]) {
                    String written = blanks(r) + (v / unit) + suffix + blanks(r);
                    assertThat(type.parse(written)).as(where + ", input '" + escape(written) + "'").isEqualTo(v);
                }
            }
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {4L, 25L, 0xcafeL, -10L})
    void sizeAgreesWithTheModelAndStaysInRange(long seed) {
        Random r = new Random(seed);
        for (int i = 0; i < CASES * 4; i++) {
            long[] range = sizeRange(r);
            ValueType<Long> type = ValueType.size(range[0], range[1]);
            String text = randomText(r);
            Long bytes = sizeModel(text);
            Long expected = bytes == null || bytes < range[0] || bytes > range[1] ? null : bytes;
            String context = "seed " + seed + ", range " + range[0] + "-" + range[1];
            agrees(type, text, expected, context);
            // ValueType.parseSize (the tools' options) reads the same grammar without a range
            agrees(new ValueType<Long>() {
                @Override
                public String description() {
                    return "parseSize";
                }

                @Override
                public String name() {
                    return "parseSize";
                }

                @Override
                public Long parse(String t) {
                    return ValueType.parseSize(t);
                }
            }, text, bytes, context + ", parseSize");
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {5L, 26L})
    void sizeOfOverflowSizedNumbersIsRefusedNotWrapped(long seed) {
        Random r = new Random(seed);
        ValueType<Long> type = ValueType.size(0, Long.MAX_VALUE);
        for (int i = 0; i < CASES; i++) {
            // a number just over what the unit allows: (MAX >> shift) + 1 .. far beyond
            int power = r.nextInt(5);
            BigInteger limit = LONG_MAX.shiftRight(10 * power);
            BigInteger n = limit.add(BigInteger.ONE).add(new BigInteger(1 + r.nextInt(70), r));
            String text = n + (power == 0 ? "" : "kmgt".substring(power - 1, power));
            String where = "seed " + seed + ", input '" + text + "'";
            assertThatThrownBy(() -> type.parse(text)).as(where).isExactlyInstanceOf(IllegalArgumentException.class);
            String atLimit = limit + (power == 0 ? "" : "KMGT".substring(power - 1, power));
            assertThat(type.parse(atLimit)).as("seed " + seed + ", input '" + atLimit + "'")
                    .isEqualTo(limit.shiftLeft(10 * power).longValueExact());
        }
    }

    // ------------------------------------------------------------------ durations

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {6L, 27L, 0xd00dL, -11L})
    void durationWrittenInEachFormParsesBackToItself(long seed) {
        Random r = new Random(seed);
        ValueType<Duration> type = ValueType.duration();
        for (int i = 0; i < CASES; i++) {
            long n = between(r, 0, 999_999_999);
            if (r.nextBoolean()) {
                n %= 1000;
            }
            String where = "seed " + seed + ", n " + n;
            check(type, blanks(r) + n + pick(r, "ms", "MS", " ms", "mS") + blanks(r), Duration.ofMillis(n), where);
            check(type, blanks(r) + n + pick(r, "s", "S", " s", "") + blanks(r), Duration.ofSeconds(n), where);
            check(type, blanks(r) + n + pick(r, "m", "M", "\tm") + blanks(r), Duration.ofMinutes(n), where);
            check(type, blanks(r) + n + pick(r, "h", "H", " h") + blanks(r), Duration.ofHours(n), where);
            // what the reference and the defaults are written with reads back as the same duration
            // (within the 9-digit cap: 999999999ms and up are formatted in the largest unit that divides them)
            for (Duration d : new Duration[] {Duration.ofMillis(n), Duration.ofSeconds(n), Duration.ofMinutes(n)}) {
                check(type, type.format(d), d, where);
                assertThat(ValueType.parseDuration(ValueType.formatDuration(d))).as(where).isEqualTo(d);
            }
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {7L, 28L, 0xf00dL, -12L})
    void durationAgreesWithTheModel(long seed) {
        Random r = new Random(seed);
        ValueType<Duration> type = ValueType.duration();
        for (int i = 0; i < CASES * 4; i++) {
            String text = randomText(r);
            Duration expected = durationModel(text);
            agrees(type, text, expected, "seed " + seed);
            if (expected != null) {
                assertThat(expected.isNegative()).as("seed " + seed + ", input '" + escape(text) + "'").isFalse();
            }
        }
    }

    private static void check(ValueType<Duration> type, String text, Duration expected, String where) {
        try {
            assertThat(type.parse(text)).as(where + ", input '" + escape(text) + "'").isEqualTo(expected);
        } catch (IllegalArgumentException e) {
            fail(where + ", input '" + escape(text) + "' refused", e);
        }
    }
}
