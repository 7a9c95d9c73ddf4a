package io.rdmaflux.protocol;

import java.util.regex.Pattern;

/**
 * Makes text that came from the other side safe to print on a terminal: one line, bounded, with
 * no control characters or escape sequences. A peer's words (ERROR messages, a remote
 * command's output) go through here before a person sees them, so a hostile peer can neither
 * drive the terminal (colours, cursor moves, window titles, a cleared screen, a fake prompt on
 * a new line) nor hide text behind bidirectional overrides.
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
     * control or format character (C0, DEL, C1, bidirectional controls, zero-width marks, line
     * and paragraph separators, unpaired surrogates) becomes '?'.
     */
    public static String sanitize(String text) {
        if (text == null) {
            return "";
        }
        String s = ESCAPES.matcher(text).replaceAll("?");
        StringBuilder b = new StringBuilder(Math.min(s.length(), MAX_LENGTH) + 3);
        int i = 0;
        while (i < s.length() && b.length() < MAX_LENGTH) {
            int cp = s.codePointAt(i);
            i += Character.charCount(cp);
            if (cp == '\n' || cp == '\r' || cp == '\t') {
                b.append(' ');
            } else if (Character.isISOControl(cp) || unsafe(Character.getType(cp))) {
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

    private static boolean unsafe(int type) {
        return type == Character.FORMAT || type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR
                || type == Character.SURROGATE || type == Character.PRIVATE_USE || type == Character.UNASSIGNED;
    }
}
