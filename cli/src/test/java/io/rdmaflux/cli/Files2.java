package io.rdmaflux.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.SplittableRandom;

/** Test files of seeded pseudo-random bytes, and their digests. */
public final class Files2 {

    private Files2() {
    }

    /** Writes {@code size} seeded pseudo-random bytes to {@code path}. */
    public static Path random(Path path, long size, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        ByteBuffer b = ByteBuffer.allocate(1 << 20);
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            long left = size;
            while (left > 0) {
                b.clear();
                while (b.remaining() >= 8) {
                    b.putLong(r.nextLong());
                }
                b.flip();
                b.limit((int) Math.min(b.limit(), left));
                left -= b.remaining();
                while (b.hasRemaining()) {
                    ch.write(b);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return path;
    }

    /** Writes {@code bytes} pseudo-random bytes, seeded with their count, to {@code out}. */
    public static void random(OutputStream out, int bytes) throws IOException {
        SplittableRandom r = new SplittableRandom(bytes);
        byte[] buf = new byte[64 * 1024];
        for (int done = 0; done < bytes; done += buf.length) {
            for (int i = 0; i < buf.length; i++) {
                buf[i] = (byte) r.nextInt();
            }
            out.write(buf);
        }
    }

    public static String sha256(Path path) {
        try (InputStream in = Files.newInputStream(path)) {
            return sha256(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String sha256(InputStream in) throws IOException {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            byte[] buf = new byte[1 << 16];
            int n;
            while ((n = in.read(buf)) > 0) {
                d.update(buf, 0, n);
            }
            return HexFormat.of().formatHex(d.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
