package io.rdmaflux.pipeline;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Set;

/**
 * Where a channel's shared key comes from, read one way for the tools ({@code rdsend},
 * {@code rdrecv}) and for pipeline files ({@code key-file}, {@code key-env}): a file's content
 * less one trailing newline, or an environment variable's value, never empty.
 */
public final class SharedKey {

    /** The environment variable the tools and pipelines read the key from when nothing else gives it. */
    public static final String ENV = "RDFLUX_KEY";

    private SharedKey() {
    }

    /**
     * The key in {@code file}.
     *
     * @throws IllegalArgumentException one line: the file does not exist, cannot be read, or is empty
     */
    public static byte[] fromFile(Path file) {
        String s;
        try {
            s = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("key file " + file + " does not exist");
        } catch (IOException | SecurityException e) {
            throw new IllegalArgumentException("cannot read key file " + file + ": " + e.getMessage());
        }
        s = s.endsWith("\r\n") ? s.substring(0, s.length() - 2) : s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
        if (s.isEmpty()) {
            throw new IllegalArgumentException("key file " + file + " is empty");
        }
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The key in the environment variable {@code name}, or null when it is not set.
     *
     * @throws IllegalArgumentException when it is set but empty
     */
    public static byte[] fromEnvironment(String name) {
        String value = System.getenv(name);
        if (value == null) {
            return null;
        }
        if (value.isEmpty()) {
            throw new IllegalArgumentException(name + " is set but empty");
        }
        return value.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The permissions of {@code file} (as {@code rw-r--r--}) when users other than its owner may
     * read it, which is worth a warning, as ssh gives for private keys; empty otherwise, and where
     * the file system has no POSIX permissions.
     */
    public static Optional<String> readableByOthers(Path file) {
        try {
            Set<PosixFilePermission> p = Files.getPosixFilePermissions(file);
            return p.contains(PosixFilePermission.GROUP_READ) || p.contains(PosixFilePermission.OTHERS_READ)
                    ? Optional.of(PosixFilePermissions.toString(p)) : Optional.empty();
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            // Not readable (reading the key reports it) or no POSIX permissions: nothing to say.
            return Optional.empty();
        }
    }
}
