package io.rdmaflux.connector.process;

import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Words quoted for a POSIX shell (sh, dash, bash, zsh), so that the shell splits the text back
 * into exactly those words: for a command run through {@code sh -c}, for the command line ssh
 * hands to the remote user's shell, and for messages that show an argument vector.
 */
public final class ShellQuote {

    /** Words that mean the same to every POSIX shell when left bare. */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_@%+=:,./-]+");

    private ShellQuote() {
    }

    /**
     * One word: left bare when it is plain, otherwise in single quotes, where nothing is special
     * but the quote itself (written {@code '\''}). The empty word is {@code ''}.
     */
    public static String quote(String word) {
        Objects.requireNonNull(word, "word");
        if (PLAIN.matcher(word).matches()) {
            return word;
        }
        return "'" + word.replace("'", "'\\''") + "'";
    }

    /** The words quoted and joined with single spaces. */
    public static String join(List<String> words) {
        StringBuilder b = new StringBuilder();
        for (String w : words) {
            if (!b.isEmpty()) {
                b.append(' ');
            }
            b.append(quote(w));
        }
        return b.toString();
    }
}
