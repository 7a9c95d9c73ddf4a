package io.rdmaflux.cli.warm;

import io.rdmaflux.cli.remote.PrivateDirectory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Where a warm agent listens: {@code DIR/KEY.sock}, with its lock {@code DIR/KEY.lock}. DIR is
 * private to the user ({@code $XDG_RUNTIME_DIR/rdflux/agent}, else {@code ~/.cache/rdflux/agent},
 * or what the coordinator named). KEY is the first 24 hex digits of the SHA-256 of the jar's real
 * path, its modification time (seconds) and its size, one a line: so a client of another install,
 * another version or a rebuilt jar at the same path never reaches this daemon.
 * {@code bin/rdflux-warm-client} computes the same name.
 *
 * @param dir the private directory
 * @param key the install's key
 */
public record WarmPlace(Path dir, String key) {

    /** The longest socket path a unix socket address takes (sun_path, less its NUL). */
    static final int MAX_SOCKET_PATH = 107;

    /** The socket. */
    public Path socket() {
        return dir.resolve(key + ".sock");
    }

    /** The lock file whose holder is the one daemon of this place. */
    public Path lock() {
        return dir.resolve(key + ".lock");
    }

    /** Whether the socket's path fits a unix socket address. */
    public boolean fits() {
        return socket().toString().getBytes(StandardCharsets.UTF_8).length <= MAX_SOCKET_PATH;
    }

    /**
     * The place for the install whose jar is {@code jar}, in {@code dir}, or the default directory
     * of {@code env} when {@code dir} is null; null when there is none (no HOME).
     */
    public static WarmPlace of(Path jar, String dir, Map<String, String> env) throws IOException {
        Path d = dir != null ? Path.of(dir) : defaultDir(env);
        return d == null ? null : new WarmPlace(d.toAbsolutePath().normalize(), key(jar));
    }

    /** {@code $XDG_RUNTIME_DIR/rdflux/agent}, else {@code $HOME/.cache/rdflux/agent}; null without either. */
    static Path defaultDir(Map<String, String> env) {
        return PrivateDirectory.userPlace(env, "agent");
    }

    /** The install's key: see the class comment. */
    static String key(Path jar) throws IOException {
        Path real = jar.toRealPath();
        String text = real + "\n" + Files.getLastModifiedTime(real).to(TimeUnit.SECONDS) + "\n" + Files.size(real) + "\n";
        try {
            byte[] sum = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sum).substring(0, 24);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this Java", e);
        }
    }
}
