package io.rdmaflux.pipeline;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Random;

/** Seeded files and digests. */
final class TestFiles {

    private TestFiles() {
    }

    /** Half text (compresses), half random bytes (does not). */
    static Path mixed(Path file, int size, long seed) throws IOException {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        byte[] text = "the quick brown fox jumps over the lazy dog\n".getBytes();
        for (int i = 0; i < size / 2; i++) {
            b[i] = text[i % text.length];
        }
        return Files.write(file, b);
    }

    static String sha256(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            int n;
            while ((n = in.read(buf)) > 0) {
                md.update(buf, 0, n);
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** The number of entries in {@code dir}. */
    static long count(Path dir) {
        try (var s = Files.list(dir)) {
            return s.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
