package io.rdmaflux.cli.remote;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Removing a directory tree that this process made (a remote install's staging directory, a
 * warm-up's tree): here, in {@code cli.remote}, because both {@code cli} and {@code cli.remote}
 * may use it (the package rules in LayeringTest let {@code cli.remote} use neither {@code cli} nor
 * {@code cli.warm}).
 */
public final class DirectoryTree {

    private DirectoryTree() {
    }

    /**
     * Removes {@code dir} and everything below it, deepest first; a symbolic link is removed, never
     * followed (what it names is left alone). What cannot be removed is left; whether {@code dir}
     * is gone (true when there was none).
     */
    public static boolean removeAll(Path dir) {
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // Left; the answer below says so.
                }
            });
        } catch (IOException | RuntimeException e) {
            // Not there, or a part could not be read: the answer below says whether it is gone.
        }
        return !Files.exists(dir, LinkOption.NOFOLLOW_LINKS);
    }
}
