package io.rdmaflux.text;

import java.util.regex.Pattern;

/**
 * Makes text that came from the other side safe to print on a terminal: one line, bounded, with
 * no control characters or escape sequences. This is the one sanitizer for every string from a
 * peer or a remote host (ERROR messages, tree streams' notices, failure reasons and paths, the
 * agent's messages and stderr, a command's stderr): it goes through here before a person sees
 * it or it goes into an exception's message, so a hostile peer can neither drive the terminal
 * (colours, cursor moves, window titles, a cleared screen, a fake prompt on a new line) nor
 * hide or reorder text (bidirectional controls, zero-width and private-use characters).
 */
public final class RemoteText {

    /** Longest text kept, in characters; longer text is cut and ends with "...". */
    public static final int MAX_LENGTH = 500;

    /** CSI (ESC [ ... final byte), OSC/DCS-like strings (ESC ] ... BEL or ESC \), any other ESC pair. */
    private static final Pattern ESCAPES = Pattern.compile(
            "\u001b\\[[0-?]*[ -/]*[@-~]|\u001b[\\]PX^_].*?(?:\u0007|\u001b\\\\|$)|\u001b.?");

    private RemoteText() {
    }

    /**
     * Each escape sequence becomes one '?'; line breaks and tabs become spaces; every other
     * character that {@link #isUnsafe} names becomes '?'; cut at {@value #MAX_LENGTH}
     * characters, ending with "...".
     */
    public static String sanitize(String text) {
        return sanitize(text, MAX_LENGTH);
    }

    /** {@link #sanitize(String)} with another bound: at most {@code max} characters, then "...". */
    public static String sanitize(String text, int max) {
        if (text == null) {
            return "";
        }
        String s = ESCAPES.matcher(text).replaceAll("?");
        StringBuilder b = new StringBuilder(Math.min(s.length(), max) + 3);
        int i = 0;
        while (i < s.length() && b.length() < max) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            if (cp == '\n' || cp == '\r' || cp == '\t') {
                b.append(' ');
            } else if (isUnsafe(cp)) {
                b.append('?');
            } else {
                b.appendCodePoint(cp);
            }
        }
        if (i < s.length()) {
            b.append("...");
        }
        return b.toString().strip();
    }

    /**
     * Whether a terminal would obey {@code cp} or show it as something it is not: a control
     * character (C0, DEL, C1), a format character (bidirectional controls, zero-width spaces
     * and joiners, the byte-order mark, tag characters), a line or paragraph separator, an
     * unpaired surrogate, a private-use or unassigned code point (a font may draw either as
     * anything). Connectors that show such characters as escapes instead (a user's own
     * configuration) use this same rule.
     */
    public static boolean isUnsafe(int cp) {
        if (Character.isISOControl(cp)) {
            return true;
        }
        int type = Character.getType(cp);
        return type == Character.FORMAT || type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR
                || type == Character.SURROGATE || type == Character.PRIVATE_USE || type == Character.UNASSIGNED;
    }
}
