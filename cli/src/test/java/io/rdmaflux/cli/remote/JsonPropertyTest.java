package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.jr.ob.JSON;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seeded-random properties of {@link Json}, the reader of what a remote agent sends: what the
 * writer writes reads back equal, generated JSON texts read as jackson-jr (the reference) reads
 * them, and hostile text (random bytes, truncations, one-character mutations of valid texts) is
 * either read as the reference reads it or refused with a {@link Json.JsonException} of one line,
 * never another exception. Every failure names the seed and the input.
 */
class JsonPropertyTest {

    /** The reference: strict jackson-core under jackson-jr, duplicate keys refused as Json refuses them. */
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

    /** What the reference gives for a text Json must refuse: not an object, or a number Json cannot hold. */
    private static final Object REFUSED = new Object() {
        @Override
        public String toString() {
            return "REFUSED";
        }
    };

    /**
     * What the reference gives for a text with an escaped surrogate that is not half of a pair
     * ({@code "\\ud800"}): jackson refuses it, Json keeps it (RFC 8259 allows the escape, and
     * the writer escapes a lone surrogate so that it reads back), so Json may accept such a text
     * only with a lone surrogate in what it read.
     */
    private static final Object LONE_SURROGATE = new Object() {
        @Override
        public String toString() {
            return "LONE_SURROGATE";
        }
    };

    /** The reference's reading of a text, in Json's types (Long, Double, LinkedHashMap, ArrayList), or REFUSED. */
    static Object reference(String text) {
        Object v;
        try (JsonParser p = FACTORY.createParser(text)) {
            v = JSON.std.anyFrom(p);
            if (p.nextToken() != null) {
                return REFUSED;
            }
        } catch (Exception e) {
            return String.valueOf(e.getMessage()).contains("surrogate") ? LONE_SURROGATE : REFUSED;
        }
        if (!(v instanceof Map)) {
            return REFUSED;
        }
        return normalize(v);
    }

    private static Object normalize(Object v) {
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                Object x = normalize(e.getValue());
                if (x == REFUSED) {
                    return REFUSED;
                }
                out.put((String) e.getKey(), x);
            }
            return out;
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            for (Object o : l) {
                Object x = normalize(o);
                if (x == REFUSED) {
                    return REFUSED;
                }
                out.add(x);
            }
            return out;
        }
        if (v instanceof Integer || v instanceof Long) {
            return ((Number) v).longValue();
        }
        if (v instanceof BigInteger) {
            return REFUSED;   // out of a long's range: Json refuses it
        }
        if (v instanceof Double d) {
            return Double.isFinite(d) ? d : REFUSED;
        }
        return v;   // String, Boolean, null
    }

    /** Json's reading of a text, or REFUSED; any exception but JsonException, or a message of more than one line, fails. */
    static Object json(long seed, String text) {
        try {
            return Json.parseObject(text);
        } catch (Json.JsonException e) {
            assertThat(e.getMessage()).as("seed %d, input %s", seed, show(text))
                    .startsWith("malformed JSON").doesNotContain("\n", "\r", "\u2028", "\u2029");
            return REFUSED;
        } catch (RuntimeException | StackOverflowError e) {
            return fail("seed %d, input %s: %s", seed, show(text), e);
        }
    }

    /** Json reads {@code text} as the reference does (see {@link #LONE_SURROGATE} for the one difference allowed). */
    static void agree(long seed, int i, String text) {
        Object mine = json(seed, text);
        Object ref = reference(text);
        if (ref == LONE_SURROGATE) {
            if (mine != REFUSED) {
                // Json joins an escaped high surrogate and a raw low one (a Java string's, as no
                // UTF-8 line can hold a lone one) into a pair; jackson refuses that too.
                boolean escapedHalfBesideARawOne =
                        text.matches("(?s).*\\\\u[dD][89abAB][0-9a-fA-F]{2}[\\udc00-\\udfff].*");
                assertThat(hasLoneSurrogate(mine) || escapedHalfBesideARawOne)
                        .as("seed %d, case %d, input %s: read %s", seed, i, show(text), mine).isTrue();
            }
        } else {
            assertThat(mine).as("seed %d, case %d, input %s", seed, i, show(text)).isEqualTo(ref);
        }
    }

    static boolean hasLoneSurrogate(Object v) {
        if (v instanceof Map<?, ?> m) {
            return m.entrySet().stream().anyMatch(e -> hasLoneSurrogate(e.getKey()) || hasLoneSurrogate(e.getValue()));
        }
        if (v instanceof List<?> l) {
            return l.stream().anyMatch(JsonPropertyTest::hasLoneSurrogate);
        }
        if (v instanceof String s) {
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else if (Character.isSurrogate(c)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The input as Java source, so that a failure can be pasted into an example test. */
    static String show(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    // ---- generators

    private static final String AWKWARD = "\"\\/\n\r\t\b\f\u0000\u007f\u2028\u2029";

    /** A string with anything in it: quotes, backslashes, controls, line separators, lone and paired surrogates. */
    static String hostileString(SplittableRandom r) {
        int n = r.nextInt(12);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            switch (r.nextInt(8)) {
                case 0 -> b.append(AWKWARD.charAt(r.nextInt(AWKWARD.length())));
                case 1 -> b.append((char) (0xd800 + r.nextInt(0x800)));   // a lone surrogate
                case 2 -> b.appendCodePoint(0x10000 + r.nextInt(0x100000));   // a pair
                case 3 -> b.append((char) r.nextInt(0x10000));
                case 4 -> b.append("\\u00e9");
                default -> b.append((char) (0x20 + r.nextInt(0x5f)));
            }
        }
        return b.toString();
    }

    /** A value of every kind the writer takes (Long, not Integer: integers read back as Long), nested up to {@code depth}. */
    static Object value(SplittableRandom r, int depth) {
        int kind = r.nextInt(depth > 0 ? 9 : 7);
        return switch (kind) {
            case 0 -> null;
            case 1 -> r.nextBoolean();
            case 2 -> switch (r.nextInt(4)) {
                case 0 -> Long.MIN_VALUE + r.nextInt(3);
                case 1 -> Long.MAX_VALUE - r.nextInt(3);
                case 2 -> (long) r.nextInt(-1000, 1000);
                default -> r.nextLong();
            };
            case 3 -> switch (r.nextInt(6)) {
                case 0 -> Double.longBitsToDouble(r.nextLong() & 0x7fefffffffffffffL) * (r.nextBoolean() ? 1 : -1);
                case 1 -> -0.0;
                case 2 -> new double[] {Double.MIN_VALUE, Double.MAX_VALUE, Double.MIN_NORMAL, 1e-300, 1e22}[r.nextInt(5)];
                case 3 -> r.nextInt(1000) / 8.0;
                default -> r.nextDouble() * Math.pow(10, r.nextInt(-20, 20));
            };
            case 4, 5, 6 -> hostileString(r);
            case 7 -> {
                List<Object> l = new ArrayList<>();
                int n = r.nextInt(5);
                for (int i = 0; i < n; i++) {
                    l.add(value(r, depth - 1));
                }
                yield l;
            }
            default -> object(r, depth - 1);
        };
    }

    static Map<String, Object> object(SplittableRandom r, int depth) {
        Map<String, Object> m = new LinkedHashMap<>();
        int n = r.nextInt(5);
        for (int i = 0; i < n; i++) {
            m.put(hostileString(r), value(r, depth));
        }
        return m;
    }

    private static final String SPACE = " \t\n\r";

    private static String ws(SplittableRandom r) {
        StringBuilder b = new StringBuilder();
        while (r.nextInt(3) == 0) {
            b.append(SPACE.charAt(r.nextInt(4)));
        }
        return b.toString();
    }

    /** JSON text as other writers might write it: spacing, every escape, numbers in every form; no duplicate keys. */
    static String text(SplittableRandom r, int depth, boolean object) {
        int kind = object ? 8 : r.nextInt(depth > 0 ? 9 : 7);
        StringBuilder b = new StringBuilder();
        switch (kind) {
            case 0 -> b.append("null");
            case 1 -> b.append(r.nextBoolean() ? "true" : "false");
            case 2, 3 -> {
                if (r.nextBoolean()) {
                    b.append('-');
                }
                if (r.nextInt(4) == 0) {
                    b.append('0');
                } else {
                    b.append(1 + r.nextInt(9));
                    int n = r.nextInt(18);
                    for (int i = 0; i < n; i++) {
                        b.append(r.nextInt(10));
                    }
                }
                if (r.nextInt(3) == 0) {
                    b.append('.');
                    int n = 1 + r.nextInt(10);
                    for (int i = 0; i < n; i++) {
                        b.append(r.nextInt(10));
                    }
                }
                if (r.nextInt(3) == 0) {
                    b.append(r.nextBoolean() ? 'e' : 'E');
                    if (r.nextBoolean()) {
                        b.append(r.nextBoolean() ? '+' : '-');
                    }
                    b.append(r.nextInt(r.nextBoolean() ? 30 : 400));
                }
            }
            case 4, 5, 6 -> b.append(stringText(r));
            case 7 -> {
                b.append('[').append(ws(r));
                int n = r.nextInt(4);
                for (int i = 0; i < n; i++) {
                    if (i > 0) {
                        b.append(ws(r)).append(',').append(ws(r));
                    }
                    b.append(text(r, depth - 1, false));
                }
                b.append(ws(r)).append(']');
            }
            default -> {
                b.append('{').append(ws(r));
                int n = r.nextInt(4);
                Set<String> keys = new HashSet<>();
                for (int i = 0; i < n; i++) {
                    String key = stringText(r);
                    if (!keys.add((String) Json.parseObject("{\"k\":" + key + "}").get("k"))) {
                        continue;
                    }
                    if (keys.size() > 1) {
                        b.append(ws(r)).append(',').append(ws(r));
                    }
                    b.append(key).append(ws(r)).append(':').append(ws(r)).append(text(r, depth - 1, false));
                }
                b.append(ws(r)).append('}');
            }
        }
        return b.toString();
    }

    private static String stringText(SplittableRandom r) {
        StringBuilder b = new StringBuilder("\"");
        int n = r.nextInt(6);
        for (int i = 0; i < n; i++) {
            switch (r.nextInt(6)) {
                case 0 -> b.append('\\').append("\"\\/bfnrt".charAt(r.nextInt(8)));
                case 1 -> {
                    String hex = String.format("%04x", r.nextInt(0x10000));
                    b.append("\\u").append(r.nextBoolean() ? hex : hex.toUpperCase());
                }
                case 2 -> b.append((char) (0xa0 + r.nextInt(0xd000)));
                case 3 -> b.appendCodePoint(0x10000 + r.nextInt(0x100000));
                default -> b.append("abcxyz ".charAt(r.nextInt(7)));
            }
        }
        return b.append('"').toString();
    }

    /** One character replaced, inserted or deleted, from an alphabet near JSON's. */
    static String mutate(SplittableRandom r, String s) {
        String alphabet = "{}[]\":,\\/0123456789-+.eEtrufalsnbu \t\n\r\u0000\u0001\u00e9\ud800\udc00";
        char c = alphabet.charAt(r.nextInt(alphabet.length()));
        int at = r.nextInt(s.length() + 1);
        return switch (r.nextInt(3)) {
            case 0 -> at < s.length() ? s.substring(0, at) + c + s.substring(at + 1) : s + c;
            case 1 -> s.substring(0, at) + c + s.substring(at);
            default -> at < s.length() ? s.substring(0, at) + s.substring(at + 1) : s.substring(0, Math.max(0, at - 1));
        };
    }

    // ---- properties

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 0x5eed, -7})
    void whatTheWriterWritesReadsBackEqualAndAsTheReferenceReadsIt(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < 3000; i++) {
            Map<String, Object> m = object(r, r.nextInt(4));
            String line = Json.write(m);
            assertThat(line).as("seed %d, case %d, value %s", seed, i, m)
                    .doesNotContain("\n", "\r", "\u2028", "\u2029");
            assertThat(Json.parseObject(line)).as("seed %d, case %d, line %s", seed, i, show(line)).isEqualTo(m);
            agree(seed, i, line);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 0x5eed, -7})
    void generatedTextsReadAsTheReferenceReadsThem(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int accepted = 0;
        for (int i = 0; i < 5000; i++) {
            String text = ws(r) + text(r, r.nextInt(5), true) + ws(r);
            agree(seed, i, text);
            accepted += json(seed, text) == REFUSED ? 0 : 1;
        }
        assertThat(accepted).as("seed %d: the generator makes mostly valid texts", seed).isGreaterThan(4000);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 0x5eed, -7})
    void mutatedTextsAreReadAsTheReferenceReadsThemOrRefused(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < 5000; i++) {
            String text = r.nextBoolean() ? text(r, r.nextInt(4), true) : Json.write(object(r, r.nextInt(3)));
            int mutations = 1 + r.nextInt(r.nextInt(4) == 0 ? 6 : 1);
            for (int k = 0; k < mutations; k++) {
                text = mutate(r, text);
            }
            agree(seed, i, text);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void everyProperPrefixOfAnObjectIsRefused(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < 300; i++) {
            String text = r.nextBoolean() ? text(r, r.nextInt(4), true) : Json.write(object(r, r.nextInt(3)));
            for (int end = 0; end < text.length(); end++) {
                String prefix = text.substring(0, end);
                assertThat(json(seed, prefix)).as("seed %d, case %d, input %s", seed, i, show(prefix))
                        .isSameAs(REFUSED);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void randomBytesAndCharactersAreReadAsTheReferenceReadsThemOrRefused(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        String alphabet = "{}[]\":,\\0123456789-.eEtrufalsn \t";
        for (int i = 0; i < 5000; i++) {
            String text;
            if (r.nextBoolean()) {
                byte[] bytes = new byte[r.nextInt(40)];
                r.nextBytes(bytes);
                text = new String(bytes, r.nextBoolean() ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
            } else {
                StringBuilder b = new StringBuilder("{");
                int n = r.nextInt(30);
                for (int k = 0; k < n; k++) {
                    b.append(alphabet.charAt(r.nextInt(alphabet.length())));
                }
                text = b.toString();
            }
            agree(seed, i, text);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void nestingIsBoundedAtAnyDepthWithoutOverflowingTheStack(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = 0; i < 200; i++) {
            int depth = 1 + r.nextInt(i < 100 ? 2 * Json.MAX_DEPTH : 100_000);
            StringBuilder open = new StringBuilder("{\"a\":");
            StringBuilder close = new StringBuilder("}");
            for (int d = 1; d < depth; d++) {
                boolean list = r.nextBoolean();
                open.append(list ? "[" : "{\"k\":");
                close.insert(0, list ? ']' : '}');
            }
            String text = open + "1" + close;
            Object read = json(seed, text);
            // The top object is level 0 and the innermost value (the 1) level depth: levels up to
            // MAX_DEPTH are read, any deeper is refused.
            assertThat(read != REFUSED).as("seed %d, depth %d, input %s", seed, depth,
                    depth < 40 ? show(text) : "(long)").isEqualTo(depth <= Json.MAX_DEPTH);
        }
    }
}
