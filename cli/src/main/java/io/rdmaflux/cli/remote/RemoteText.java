package io.rdmaflux.cli.remote;

import java.util.regex.Pattern;

/**
 * Text from another host (its ssh's messages, its agent's errors, its commands' stderr) made
 * safe to print on a terminal: one line, bounded, with no control characters or escape
 * sequences that could move the cursor, rewrite the screen or hide text.
 */
public final class RemoteText {

    /** The most characters kept of one line; the rest is cut and marked. */
    public static final int MAX_LENGTH = 500;

    // CSI (ESC [ ... final) and OSC/DCS-style strings (ESC ] ... BEL or ESC \), then any other ESC pair.
    private static final Pattern ESCAPES = Pattern.compile(
            "\u001b\\[[0-?]*[ -/]*[@-~]|\u001b[\\]PX^_].*?(?:\u0007|\u001b\\\\|$)|\u001b.?");

    private RemoteText() {
    }

    /** The text as one printable line (see the class comment). */
    public static String sanitize(String text) {
        if (text == null) {
            return "";
        }
        String s = ESCAPES.matcher(text).replaceAll("?");
        StringBuilder b = new StringBuilder(Math.min(s.length(), MAX_LENGTH + 3));
        for (int i = 0; i < s.length() && b.length() < MAX_LENGTH; i++) {
            char c = s.charAt(i);
            if (c == '\t' || c == '\n' || c == '\r') {
                b.append(' ');
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                b.append(c).append(s.charAt(++i));
            } else if (Character.isISOControl(c) || isBidiControl(c) || Character.isSurrogate(c)) {
                b.append('?');
            } else {
                b.append(c);
            }
        }
        if (b.length() >= MAX_LENGTH && s.length() > MAX_LENGTH) {
            b.append("...");
        }
        return b.toString().strip();
    }

    // Explicit direction marks can make a line read differently from what it contains.
    private static boolean isBidiControl(char c) {
        return c >= '\u202a' && c <= '\u202e' || c >= '\u2066' && c <= '\u2069' || c == '\u200e' || c == '\u200f'
                || c == '\u061c';
    }
}
