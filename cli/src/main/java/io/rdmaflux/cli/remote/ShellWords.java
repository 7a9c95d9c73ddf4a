package io.rdmaflux.cli.remote;

import io.rdmaflux.connector.process.ShellQuote;
import java.util.ArrayList;
import java.util.List;

/**
 * Words in and out of shell command lines: splitting a {@code -e}/{@code RDFLUX_RSH} command
 * as rsync splits its {@code -e}, and quoting words for the POSIX shell that runs a remote
 * command (ssh joins its arguments with spaces and hands them to the remote user's shell);
 * the quoting itself is {@link ShellQuote}'s, shared with the command connectors.
 */
public final class ShellWords {

    private ShellWords() {
    }

    /**
     * Splits a command line into words as rsync does for {@code -e}: words are separated by
     * spaces or tabs; single and double quotes group (and are removed), a doubled quote inside a
     * quoted part stands for the quote itself; backslashes are ordinary characters.
     *
     * @throws IllegalArgumentException for an unterminated quote
     */
    public static List<String> split(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c != quote) {
                    word.append(c);
                } else if (i + 1 < line.length() && line.charAt(i + 1) == quote) {
                    word.append(c);
                    i++;
                } else {
                    quote = 0;
                }
            } else if (c == ' ' || c == '\t') {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else {
                inWord = true;
                if (c == '\'' || c == '"') {
                    quote = c;
                } else {
                    word.append(c);
                }
            }
        }
        if (quote != 0) {
            throw new IllegalArgumentException("unterminated " + (quote == '\'' ? "single" : "double") + " quote in '"
                    + line + "'");
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }

    /** One word quoted for a POSIX shell: {@link ShellQuote#quote}, the project's one quoter. */
    public static String quote(String word) {
        return ShellQuote.quote(word);
    }

    /** The words quoted and joined with spaces: {@link ShellQuote#join}. */
    public static String join(List<String> words) {
        return ShellQuote.join(words);
    }
}
