package io.rdmaflux.connector;

import io.rdmaflux.buffer.BufferPool;
import io.rdmaflux.buffer.Chunk;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Random;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import reactor.core.publisher.Flux;

/** Seeded data, digests, and polling for asynchronous clean-up (a generous deadline, not a timing threshold). */
public final class TestSupport {

    private TestSupport() {
    }

    static byte[] randomBytes(int size, long seed) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    static Path randomFile(Path dir, String name, int size, long seed) throws IOException {
        return Files.write(dir.resolve(name), randomBytes(size, seed));
    }

    public static String sha256(Path file) throws IOException {
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

    static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    /** Copies a chunk's bytes out and releases it. */
    static byte[] drain(Chunk chunk) {
        ByteBuffer b = chunk.buffer();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        chunk.release();
        return out;
    }

    /** Collects a source's bytes, releasing every chunk. */
    public static byte[] collect(Flux<Chunk> chunks) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        chunks.doOnNext(c -> out.writeBytes(drain(c))).blockLast(java.time.Duration.ofSeconds(60));
        return out.toByteArray();
    }

    /** {@code data} as chunks of {@code size} bytes leased from {@code pool} (capacity permitting). */
    static Flux<Chunk> chunksOf(byte[] data, int size, BufferPool pool) {
        return Flux.range(0, (data.length + size - 1) / size).map(i -> {
            Chunk c = pool.acquire();
            int off = i * size;
            c.buffer().put(data, off, Math.min(size, data.length - off)).flip();
            return c;
        });
    }

    /**
     * Waits for a condition that clean-up on another thread makes true; fails after 20 s. Kept as
     * the connectors' one bound for such waits (some thirty calls in nine test classes), on Awaitility.
     */
    public static void await(String what, BooleanSupplier condition) {
        Awaitility.await(what).atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(5))
                .until(condition::getAsBoolean);
    }

    /** Files in {@code dir} (names), sorted. */
    static java.util.List<String> list(Path dir) throws IOException {
        try (var s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
