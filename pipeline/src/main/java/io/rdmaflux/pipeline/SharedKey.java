package io.rdmaflux.pipeline;

import io.rdmaflux.connector.StandardStreams;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
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
     * The longest key a file may hold, in bytes (its trailing newline aside). Keys are short (a
     * fresh random one is 43 characters); the bound keeps a wrong file ({@code /dev/zero}, a disk
     * image) from filling the memory: only this much, and a few bytes more, is ever read.
     */
    public static final int MAX_FILE_KEY = 4096;

    /**
     * The key in {@code file}, read once: a FIFO ({@code --key-file <(pass show rdkey)}) gives
     * it to the first reader only.
     *
     * @throws IllegalArgumentException one line: the file does not exist, cannot be read, is
     *                                  empty, or holds more than {@value #MAX_FILE_KEY} bytes
     */
    public static byte[] fromFile(Path file) {
        byte[] bytes;
        // A served call's /dev/stdin is its caller's (StandardStreams); messages name the user's path.
        try (InputStream in = Files.newInputStream(StandardStreams.resolve(file))) {
            // Two bytes more than a key: room for its "\r\n", and one more tells a longer file.
            bytes = in.readNBytes(MAX_FILE_KEY + 3);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("key file " + file + " does not exist");
        } catch (IOException | SecurityException e) {
            throw new IllegalArgumentException("cannot read key file " + file + ": " + e.getMessage());
        }
        int n = bytes.length;
        if (n > 0 && bytes[n - 1] == '\n') {
            n -= n > 1 && bytes[n - 2] == '\r' ? 2 : 1;
        }
        if (n > MAX_FILE_KEY) {
            throw new IllegalArgumentException("key file " + file + " holds more than " + MAX_FILE_KEY
                    + " bytes, which is no key (is it the right file?)");
        }
        String s;
        try {
            s = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes, 0, n)).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("cannot read key file " + file + ": it is not UTF-8 text");
        }
        if (s.isEmpty()) {
            throw new IllegalArgumentException("key file " + file + " is empty");
        }
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Checks {@code file} as a key file without waiting on it: a file or a device is read (as
     * {@link #fromFile}, so at most a few KiB); a FIFO (what {@code key-file: <(pass ...)} names)
     * or a socket is only checked to exist and be readable, since opening a FIFO waits for its
     * writer, and reading it would take the key from the run it is for.
     *
     * @throws IllegalArgumentException as {@link #fromFile}
     */
    public static void check(Path file) {
        if (!Files.exists(file)) {
            throw new IllegalArgumentException("key file " + file + " does not exist");
        }
        if (!isFifoOrSocket(file)) {
            fromFile(file);
        } else if (!Files.isReadable(file)) {
            throw new IllegalArgumentException("cannot read key file " + file + ": permission denied");
        }
    }

    private static boolean isFifoOrSocket(Path file) {
        try {
            int type = (Integer) Files.getAttribute(file, "unix:mode") & 0170000;
            return type == 0010000 || type == 0140000;
        } catch (UnsupportedOperationException | IllegalArgumentException | IOException | SecurityException e) {
            // No unix view: whatever is neither a file, a directory nor a link is left unopened.
            return Files.exists(file) && !Files.isRegularFile(file) && !Files.isDirectory(file);
        }
    }

    /**
     * The key in the environment variable {@code name}, or null when it is not set.
     *
     * @throws IllegalArgumentException when it is set but empty
     */
    public static byte[] fromEnvironment(String name) {
        return fromEnvironment(name, System.getenv());
    }

    /** {@link #fromEnvironment(String)} in {@code env} (a warm agent's session, not its JVM's). */
    public static byte[] fromEnvironment(String name, Map<String, String> env) {
        String value = env.get(name);
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
