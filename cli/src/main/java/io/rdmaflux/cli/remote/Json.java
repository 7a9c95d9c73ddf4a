package io.rdmaflux.cli.remote;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The agent protocol's message encoding: one JSON object per line (RFC 8259), read strictly.
 * Values map to {@code Map<String, Object>} (keys in order), {@code List<Object>},
 * {@code String}, {@code Long} (integers), {@code Double}, {@code Boolean} and {@code null}.
 * Small on purpose: messages are short and flat, and both ends are this code.
 */
final class Json {

    /** Deeper nesting is refused: no message needs it, and recursion must stay bounded. */
    static final int MAX_DEPTH = 16;

    private final String text;
    private int pos;

    private Json(String text) {
        this.text = text;
    }

    /** A JSON text that is not a well-formed object. */
    static final class JsonException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        JsonException(String message) {
            super(message);
        }
    }

    /** Parses one JSON object; anything else (or trailing text) is refused. */
    static Map<String, Object> parseObject(String text) {
        Json p = new Json(text);
        p.space();
        if (p.peek() != '{') {
            throw p.error("expected a JSON object");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> value = (Map<String, Object>) p.value(0);
        p.space();
        if (p.pos != text.length()) {
            throw p.error("unexpected text after the object");
        }
        return value;
    }

    /** Writes a value (maps, lists, strings, numbers, booleans, null) as compact JSON. */
    static String write(Object value) {
        StringBuilder b = new StringBuilder();
        write(b, value);
        return b.toString();
    }

    private static void write(StringBuilder b, Object v) {
        if (v == null) {
            b.append("null");
        } else if (v instanceof String s) {
            string(b, s);
        } else if (v instanceof Boolean || v instanceof Integer || v instanceof Long) {
            b.append(v);
        } else if (v instanceof Double d && Double.isFinite(d)) {
            b.append(d);
        } else if (v instanceof Map<?, ?> m) {
            b.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                string(b, (String) e.getKey());
                b.append(':');
                write(b, e.getValue());
            }
            b.append('}');
        } else if (v instanceof List<?> l) {
            b.append('[');
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) {
                    b.append(',');
                }
                write(b, l.get(i));
            }
            b.append(']');
        } else {
            throw new IllegalArgumentException("not a JSON value: " + v.getClass().getSimpleName());
        }
    }

    private static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                        b.append(c).append(s.charAt(++i));
                    } else if (c < 0x20 || c == 0x7f || c == 0x2028 || c == 0x2029 || Character.isSurrogate(c)) {
                        // Escaped, so that a line stays one line of valid UTF-8.
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }

    private Object value(int depth) {
        if (depth > MAX_DEPTH) {
            throw error("nested deeper than " + MAX_DEPTH);
        }
        space();
        char c = peek();
        switch (c) {
            case '{' -> {
                pos++;
                Map<String, Object> m = new LinkedHashMap<>();
                space();
                if (peek() == '}') {
                    pos++;
                    return m;
                }
                while (true) {
                    space();
                    if (peek() != '"') {
                        throw error("expected a key in quotes");
                    }
                    String key = string();
                    space();
                    expect(':');
                    if (m.containsKey(key)) {
                        throw error("duplicate key " + write(key));   // escaped: the message stays one line
                    }
                    m.put(key, value(depth + 1));
                    space();
                    if (peek() == ',') {
                        pos++;
                    } else {
                        expect('}');
                        return m;
                    }
                }
            }
            case '[' -> {
                pos++;
                List<Object> l = new ArrayList<>();
                space();
                if (peek() == ']') {
                    pos++;
                    return l;
                }
                while (true) {
                    l.add(value(depth + 1));
                    space();
                    if (peek() == ',') {
                        pos++;
                    } else {
                        expect(']');
                        return l;
                    }
                }
            }
            case '"' -> {
                return string();
            }
            case 't' -> {
                return literal("true", Boolean.TRUE);
            }
            case 'f' -> {
                return literal("false", Boolean.FALSE);
            }
            case 'n' -> {
                return literal("null", null);
            }
            default -> {
                return number();
            }
        }
    }

    private Object literal(String word, Object value) {
        if (!text.startsWith(word, pos)) {
            throw error("unexpected character");
        }
        pos += word.length();
        return value;
    }

    private Object number() {
        int start = pos;
        if (peek() == '-') {
            pos++;
        }
        if (peek() == '0') {
            pos++;
        } else if (isDigit(peek())) {
            while (isDigit(peek())) {
                pos++;
            }
        } else {
            throw error("unexpected character");
        }
        boolean integer = true;
        if (peek() == '.') {
            integer = false;
            pos++;
            digits();
        }
        if (peek() == 'e' || peek() == 'E') {
            integer = false;
            pos++;
            if (peek() == '+' || peek() == '-') {
                pos++;
            }
            digits();
        }
        String n = text.substring(start, pos);
        if (integer) {
            try {
                return Long.parseLong(n);
            } catch (NumberFormatException e) {
                throw error("integer out of range");
            }
        }
        double d = Double.parseDouble(n);
        if (!Double.isFinite(d)) {
            throw error("number out of range");   // 1E400 would be Infinity, which write refuses
        }
        return d;
    }

    private void digits() {
        if (!isDigit(peek())) {
            throw error("expected a digit");
        }
        while (isDigit(peek())) {
            pos++;
        }
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private String string() {
        expect('"');
        StringBuilder b = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(pos++);
            if (c == '"') {
                break;
            }
            if (c < 0x20) {
                throw error("control character in a string");
            }
            if (c != '\\') {
                b.append(c);
                continue;
            }
            if (pos >= text.length()) {
                throw error("unterminated string");
            }
            char e = text.charAt(pos++);
            switch (e) {
                case '"', '\\', '/' -> b.append(e);
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'u' -> {
                    if (pos + 4 > text.length()) {
                        throw error("short \\u escape");
                    }
                    // Four ASCII hex digits: Integer.parseInt would also take a sign ("\\u+041",
                    // "\\u-001") and other scripts' digits.
                    int code = 0;
                    for (int i = 0; i < 4; i++) {
                        int d = hex(text.charAt(pos + i));
                        if (d < 0) {
                            throw error("bad \\u escape");
                        }
                        code = code << 4 | d;
                    }
                    b.append((char) code);
                    pos += 4;
                }
                default -> throw error("bad escape after a backslash: " + write(String.valueOf(e)));
            }
        }
        return b.toString();
    }

    private void expect(char c) {
        if (peek() != c) {
            throw error("expected '" + c + "'");
        }
        pos++;
    }

    private char peek() {
        return pos < text.length() ? text.charAt(pos) : '\0';
    }

    private void space() {
        while (pos < text.length() && (text.charAt(pos) == ' ' || text.charAt(pos) == '\t'
                || text.charAt(pos) == '\n' || text.charAt(pos) == '\r')) {
            pos++;
        }
    }

    private JsonException error(String what) {
        return new JsonException("malformed JSON at offset " + pos + ": " + what);
    }
}
