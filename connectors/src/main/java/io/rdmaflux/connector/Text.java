package io.rdmaflux.connector;

import io.rdmaflux.text.RemoteText;
import java.util.Locale;

/**
 * Shows a value from a user's own file or command line with what it holds made visible
 * ({@code \\x1b}, {@code \\n}). Text to be made safe rather than shown (a command's stderr, a
 * peer's words) goes through {@link RemoteText#sanitize}: both use {@link RemoteText#isUnsafe},
 * one rule for what a terminal must not be given.
 */
public final class Text {

    private Text() {
    }

    /**
     * {@code s} with every character {@link RemoteText#isUnsafe} names written as an escape
     * ({@code \\n}, {@code \\r}, {@code \\t}, {@code \\x1b}; others as their code point), so
     * that a person sees what a value holds; cut to {@code max} characters with an ellipsis.
     */
    public static String escape(String s, int max) {
        StringBuilder b = new StringBuilder(Math.min(s.length(), max + 1));
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            if (b.length() >= max) {
                b.append('\u2026');
                break;
            }
            if (RemoteText.isUnsafe(cp)) {
                b.append(switch (cp) {
                    case '\n' -> "\\n";
                    case '\r' -> "\\r";
                    case '\t' -> "\\t";
                    default -> String.format(Locale.ROOT, cp <= 0xff ? "\\x%02x" : "\\u%04x", cp);
                });
            } else {
                b.appendCodePoint(cp);
            }
        }
        return b.toString();
    }
}
