package io.rdmaflux.pipeline.builtin;

import io.rdmaflux.connector.ConnectorException;
import io.rdmaflux.connector.IoErrors;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The tree source's {@code glob}: wildcards in the last component of a path, expanded on the
 * host that reads the files, as scp's remote shell expands {@code host:dir/*.txt}. No shell
 * runs: a match is a name read from its directory, whatever characters it holds. As in a
 * shell, {@code *} and {@code ?} match no leading dot, and a path without wildcards stands for
 * itself; unlike a shell, a pattern with no match is an error rather than a literal name.
 */
final class Wildcards {

    /** The characters that make a component a pattern. */
    private static final Pattern WILD = Pattern.compile("[*?\\[]");

    private Wildcards() {
    }

    /** Whether {@code name} holds a wildcard. */
    static boolean isPattern(String name) {
        return WILD.matcher(name).find();
    }

    /**
     * Each path, or the sorted names its last component matches in its directory.
     *
     * @throws ConnectorException (SOURCE_FAILED, NOT_FOUND) when a pattern matches nothing
     */
    static List<Path> expand(List<Path> paths) {
        List<Path> out = new ArrayList<>();
        for (Path p : paths) {
            Path last = p.getFileName();
            if (last == null || !isPattern(last.toString())) {
                out.add(p);
                continue;
            }
            Path parent = p.getParent() != null ? p.getParent() : Path.of("");
            List<Path> matched = matches(parent, last.toString(), p);
            if (matched.isEmpty()) {
                throw ConnectorException.source(ConnectorException.Reason.NOT_FOUND, "no match for " + p, null);
            }
            out.addAll(matched);
        }
        return out;
    }

    private static List<Path> matches(Path parent, String pattern, Path p) {
        PathMatcher matcher;
        try {
            // [!x] is the shell's negation; the glob syntax spells it [!x] too. Braces are literal in a shell's name.
            matcher = parent.getFileSystem().getPathMatcher("glob:" + pattern.replace("{", "\\{").replace("}", "\\}"));
        } catch (IllegalArgumentException e) {
            throw ConnectorException.source(ConnectorException.Reason.NOT_FOUND, "no match for " + p
                    + " (not a valid pattern: " + e.getMessage().lines().findFirst().orElse("") + ")", null);
        }
        boolean dots = pattern.startsWith(".");
        List<Path> found = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(parent.toString().isEmpty() ? Path.of(".") : parent)) {
            for (Path child : ds) {
                Path name = child.getFileName();
                if ((dots || !name.toString().startsWith(".")) && matcher.matches(name)) {
                    found.add(parent.resolve(name));
                }
            }
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            ConnectorException.Reason r = IoErrors.classify(e);
            throw ConnectorException.source(r, "cannot read " + parent + ": " + IoErrors.phrase(r, e), e);
        }
        found.sort(null);
        return found;
    }
}
