package io.rdmaflux.connector;

import java.util.Locale;
import java.util.function.IntFunction;

/** Makes text that another program or a user's file holds safe to print on a terminal as one line. */
public final class Text {

    private Text() {
    }

    /**
     * {@code s} with every control character (C0, DEL, C1: so escape sequences lose their ESC)
     * and every bidirectional-override character replaced by {@code ?}, tabs by a space, and
     * cut to {@code max} characters with an ellipsis.
     */
    static String sanitize(String s, int max) {
        return replaceUnsafe(s, max, cp -> cp == '\t' ? " " : "?");
    }

    /**
     * {@code s} with the same characters as {@link #sanitize} written as escapes instead
     * ({@code \n}, {@code \r}, {@code \t}, {@code \x1b}; a bidirectional control as its code
     * point), so that a person sees what a value holds; cut to {@code max} characters with an ellipsis.
     */
    public static String escape(String s, int max) {
        return replaceUnsafe(s, max, cp -> switch (cp) {
            case '\n' -> "\\n";
            case '\r' -> "\\r";
            case '\t' -> "\\t";
            default -> String.format(Locale.ROOT, cp <= 0xff ? "\\x%02x" : "\\u%04x", cp);
        });
    }

    private static String replaceUnsafe(String s, int max, IntFunction<String> replacement) {
        StringBuilder b = new StringBuilder(Math.min(s.length(), max + 1));
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            if (b.length() >= max) {
                b.append('\u2026');
                break;
            }
            if (Character.isISOControl(cp) || isBidiControl(cp)) {
                b.append(replacement.apply(cp));
            } else {
                b.appendCodePoint(cp);
            }
        }
        return b.toString();
    }

    /** Characters that reorder how a terminal shows the text around them (Trojan Source). */
    private static boolean isBidiControl(int cp) {
        return cp == 0x061C || cp == 0x200E || cp == 0x200F
                || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
    }
}
