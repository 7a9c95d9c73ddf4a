package io.rdmaflux.cli.remote;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Whether an OpenSSH client config file sets a keyword for one host, read as ssh reads it:
 * lines before any {@code Host} or {@code Match} apply to every host; a {@code Host} line's
 * patterns ({@code *}, {@code ?}, {@code !} to exclude) decide for the lines up to the next
 * {@code Host} or {@code Match}; an {@code Include} is read where it stands (its globs in the
 * last name, {@code ~}, a relative name under {@code ~/.ssh} for the user's file and
 * {@code /etc/ssh} for the system's), 16 deep at most as in ssh. A {@code Match} block other
 * than {@code Match all} depends on what only ssh knows (exec, canonical names, the user), so
 * what it sets counts as set: the user's choice is kept rather than overridden.
 */
final class SshConfig {

    /** How deep Includes go (ssh's READCONF_MAX_DEPTH). */
    private static final int MAX_DEPTH = 16;
    /** The most of a config file read: ssh's own are small; a larger one is not looked through. */
    private static final int MAX_FILE = 1 << 20;

    private final String host;
    private final String prefix;
    private final Path base;

    private SshConfig(String host, String prefix, Path base) {
        this.host = host.toLowerCase(Locale.ROOT);
        this.prefix = prefix.toLowerCase(Locale.ROOT);
        this.base = base;
    }

    /**
     * Whether {@code file}, or a file it includes, sets a keyword that starts with {@code prefix}
     * (any case) for {@code host}; false when it cannot be read.
     *
     * @param base where a relative Include name is looked for
     */
    static boolean sets(Path file, Path base, String host, String prefix) {
        return file != null && new SshConfig(host, prefix, base).read(file, 0);
    }

    private boolean read(Path file, int depth) {
        if (depth > MAX_DEPTH || !Files.isRegularFile(file)) {
            return false;
        }
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_FILE);
        } catch (IOException | SecurityException e) {
            return false;
        }
        boolean applies = true;   // before any Host or Match line
        for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
            List<String> words = words(line);
            if (words.isEmpty()) {
                continue;
            }
            String keyword = words.get(0).toLowerCase(Locale.ROOT);
            List<String> args = words.subList(1, words.size());
            switch (keyword) {
                case "host" -> applies = matches(args);
                case "match" -> applies = true;   // "all", or undecidable here: counted as applying
                case "include" -> {
                    if (applies && args.stream().anyMatch(a -> included(a).stream().anyMatch(f -> read(f, depth + 1)))) {
                        return true;
                    }
                }
                default -> {
                    if (applies && keyword.startsWith(prefix)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** Whether a Host line's patterns take this host: one of them matches and no negated one does. */
    private boolean matches(List<String> patterns) {
        boolean any = false;
        for (String p : patterns) {
            String pattern = p.toLowerCase(Locale.ROOT);
            if (pattern.startsWith("!")) {
                if (glob(pattern.substring(1), host)) {
                    return false;
                }
            } else if (glob(pattern, host)) {
                any = true;
            }
        }
        return any;
    }

    /** The files an Include argument names, sorted as ssh's glob(3) gives them. */
    private List<Path> included(String arg) {
        String name = arg.startsWith("~/") ? System.getProperty("user.home") + arg.substring(1) : arg;
        Path p = Path.of(name);
        if (!p.isAbsolute()) {
            p = base.resolve(p);
        }
        String last = p.getFileName() == null ? "" : p.getFileName().toString();
        if (!last.contains("*") && !last.contains("?")) {
            return List.of(p);
        }
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> d = Files.newDirectoryStream(p.getParent())) {
            for (Path f : d) {
                if (glob(last, f.getFileName().toString())) {
                    found.add(f);
                }
            }
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
        found.sort(null);
        return found;
    }

    /** ssh's match_pattern: {@code *} any run, {@code ?} any one character. */
    static boolean glob(String pattern, String s) {
        return glob(pattern, 0, s, 0);
    }

    private static boolean glob(String p, int i, String s, int j) {
        while (i < p.length()) {
            char c = p.charAt(i);
            if (c == '*') {
                for (int k = j; k <= s.length(); k++) {
                    if (glob(p, i + 1, s, k)) {
                        return true;
                    }
                }
                return false;
            }
            if (j >= s.length() || (c != '?' && c != s.charAt(j))) {
                return false;
            }
            i++;
            j++;
        }
        return j == s.length();
    }

    /** A line's words: split at blanks and the first '=' after the keyword, double quotes group; none for a comment. */
    private static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder w = null;
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (words.isEmpty() && w == null && c == '#') {
                return List.of();
            }
            if (c == '"') {
                quoted = !quoted;
                w = w == null ? new StringBuilder() : w;
            } else if (!quoted && (Character.isWhitespace(c) || c == '=' && words.isEmpty())) {
                if (w != null) {
                    words.add(w.toString());
                    w = null;
                }
            } else {
                w = w == null ? new StringBuilder() : w;
                w.append(c);
            }
        }
        if (w != null) {
            words.add(w.toString());
        }
        return words;
    }
}
