package io.rdmaflux.protocol;

/**
 * Makes text that came from the other side safe to print on a terminal: one line, bounded, with
 * no control characters or escape sequences. A peer's words (ERROR messages, a remote
 * command's output) go through here before a person sees them, so a hostile peer can neither
 * drive the terminal (colours, cursor moves, window titles, a fake prompt) nor hide text
 * behind bidirectional overrides.
 */
public final class RemoteText {

    /** Longest text kept, in characters; longer text is cut and ends with "...". */
    public static final int MAX_CHARS = 400;

    private RemoteText() {
    }

    /**
     * Line breaks and tabs become spaces; every other control or format character (C0, DEL,
     * C1, ESC and so the escape sequences it starts, bidirectional controls, line and paragraph
     * separators) becomes '?'.
     */
    public static String sanitize(String text) {
        if (text == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(Math.min(text.length(), MAX_CHARS) + 3);
        int i = 0;
        while (i < text.length() && b.length() < MAX_CHARS) {
            int cp = text.codePointAt(i);
            i += Character.charCount(cp);
            if (cp == '\n' || cp == '\r' || cp == '\t') {
                b.append(' ');
            } else if (Character.isISOControl(cp) || unsafe(Character.getType(cp))) {
                b.append('?');
            } else {
                b.appendCodePoint(cp);
            }
        }
        if (i < text.length()) {
            b.append("...");
        }
        return b.toString();
    }

    private static boolean unsafe(int type) {
        return type == Character.FORMAT || type == Character.LINE_SEPARATOR || type == Character.PARAGRAPH_SEPARATOR
                || type == Character.SURROGATE || type == Character.PRIVATE_USE || type == Character.UNASSIGNED;
    }
}
