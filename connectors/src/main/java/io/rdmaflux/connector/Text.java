package io.rdmaflux.connector;

/** Makes text that another program wrote safe to print on a terminal as one line. */
final class Text {

    private Text() {
    }

    /**
     * {@code s} with every control character (C0, DEL, C1: so escape sequences lose their ESC)
     * and every bidirectional-override character replaced by {@code ?}, tabs by a space, and
     * cut to {@code max} characters with an ellipsis.
     */
    static String sanitize(String s, int max) {
        StringBuilder b = new StringBuilder(Math.min(s.length(), max + 1));
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            if (b.length() >= max) {
                b.append('\u2026');
                break;
            }
            if (cp == '\t') {
                b.append(' ');
            } else if (Character.isISOControl(cp) || isBidiControl(cp)) {
                b.append('?');
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
