package io.rdmaflux.connector.tree;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.TestSupport;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Flux;

/**
 * Test trees and an independent way to compare them: a listing made with java.nio directly
 * (type, mode, size, mtime, link target, SHA-256 of the content), not with the code under test.
 */
final class Trees {

    static final Duration T = Duration.ofSeconds(60);
    static final LinkOption NOFOLLOW = LinkOption.NOFOLLOW_LINKS;

    private Trees() {
    }

    /**
     * A tree with what trips copy tools up: deep paths, spaces, unicode and a leading dash,
     * empty files and directories, symbolic links (relative, dangling, to a directory), modes
     * 0600/0700/0755, old modification times, hard links, {@code small} small files and a few
     * files larger than {@code large} bytes, one of them sparse.
     */
    static Path varied(Path root, int small, int large, long seed) throws IOException {
        Random r = new Random(seed);
        Files.createDirectories(root);
        Path deep = root;
        for (int i = 0; i < 12; i++) {
            deep = deep.resolve("level " + i + (i % 3 == 0 ? "-ünïcödé" : ""));
        }
        Files.createDirectories(deep);
        write(deep.resolve("-leading dash.txt"), bytes(r, 100));
        write(root.resolve("名前 with spaces.bin"), bytes(r, 5000));
        write(root.resolve("empty"), new byte[0]);
        Files.createDirectories(root.resolve("empty dir/nested empty"));
        Path modes = Files.createDirectories(root.resolve("modes"));
        write(modes.resolve("secret"), bytes(r, 10));
        Files.setPosixFilePermissions(modes.resolve("secret"), PosixFilePermissions.fromString("rw-------"));
        write(modes.resolve("tool"), bytes(r, 10));
        Files.setPosixFilePermissions(modes.resolve("tool"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Path priv = Files.createDirectories(modes.resolve("private"));
        write(priv.resolve("inside"), bytes(r, 33));
        Files.setPosixFilePermissions(priv, PosixFilePermissions.fromString("rwx------"));
        Path links = Files.createDirectories(root.resolve("links"));
        Files.createSymbolicLink(links.resolve("to file"), Path.of("../empty"));
        Files.createSymbolicLink(links.resolve("dangling"), Path.of("nowhere/at all"));
        Files.createSymbolicLink(links.resolve("to dir"), Path.of("../modes"));
        Files.createSymbolicLink(links.resolve("absolute"), Path.of("/nonexistent/rdflux test target"));
        write(links.resolve("original"), bytes(r, 3000));
        Files.createLink(links.resolve("hard link"), links.resolve("original"));
        Path many = Files.createDirectories(root.resolve("node_modules"));
        for (int i = 0; i < small; i++) {
            Path d = many.resolve("pkg" + (i % 50)).resolve(i % 7 == 0 ? "lib" : "");
            Files.createDirectories(d);
            write(d.resolve("f" + i + ".js"), bytes(r, r.nextInt(3000)));
        }
        if (large > 0) {
            Path big = Files.createDirectories(root.resolve("weights"));
            for (int i = 0; i < 3; i++) {
                write(big.resolve("shard-" + i + ".bin"), bytes(r, large + 4096 * i + 77));
            }
            // Sparse: data, a hole of several reads, data, and a hole at the end.
            Path sparse = big.resolve("sparse.img");
            try (var ch = java.nio.channels.FileChannel.open(sparse, java.nio.file.StandardOpenOption.CREATE_NEW,
                    java.nio.file.StandardOpenOption.WRITE)) {
                ch.write(java.nio.ByteBuffer.wrap(bytes(r, 70_000)), 0);
                ch.write(java.nio.ByteBuffer.wrap(bytes(r, 5_000)), 3L * large);
                ch.truncate(5L * large);
                if (ch.size() < 5L * large) {
                    ch.write(java.nio.ByteBuffer.wrap(new byte[1]), 5L * large - 1);
                }
            }
        }
        // Old times, set last (children first), on files, directories and links.
        List<Path> all = new ArrayList<>();
        try (var s = Files.walk(root)) {
            s.forEach(all::add);
        }
        for (int i = all.size() - 1; i >= 0; i--) {
            long nanos = 631_152_000_000_000_000L + r.nextInt(1_000_000) * 1_000_000_123L;
            Files.getFileAttributeView(all.get(i), java.nio.file.attribute.BasicFileAttributeView.class, NOFOLLOW)
                    .setTimes(FileTime.from(nanos, TimeUnit.NANOSECONDS), null, null);
        }
        return root;
    }

    static byte[] bytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    static void write(Path p, byte[] b) throws IOException {
        Files.write(p, b);
    }

    /**
     * Every entry under {@code root} as "type mode size mtime link-or-sha256", keyed by relative
     * path ("." for the root). Times compare in nanoseconds; symbolic links' in microseconds
     * where the sink has no {@link LinkTimes} (JDK 17 sets them with lutimes).
     */
    static Map<String, String> listing(Path root) throws IOException {
        Map<String, String> m = new TreeMap<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes a) throws IOException {
                m.put(key(root, dir), describe(dir));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes a) throws IOException {
                m.put(key(root, file), describe(file));
                return FileVisitResult.CONTINUE;
            }
        });
        return m;
    }

    /** Asserts that two trees have the same listing, showing only the entries that differ. */
    static void assertSameTree(Path actual, Path expected) throws IOException {
        Map<String, String> a = listing(actual);
        Map<String, String> e = listing(expected);
        Map<String, String> diff = new TreeMap<>();
        for (String k : e.keySet()) {
            if (!e.get(k).equals(a.get(k))) {
                diff.put(k, "expected " + e.get(k) + " but was " + a.get(k));
            }
        }
        for (String k : a.keySet()) {
            if (!e.containsKey(k)) {
                diff.put(k, "not expected: " + a.get(k));
            }
        }
        org.assertj.core.api.Assertions.assertThat(diff).as("entries that differ").isEmpty();
    }

    private static String key(Path root, Path p) {
        String k = root.relativize(p).toString();
        return k.isEmpty() ? "." : k;
    }

    static String describe(Path p) throws IOException {
        Map<String, Object> a = Files.readAttributes(p, "unix:mode,size,lastModifiedTime", NOFOLLOW);
        int mode = (Integer) a.get("mode");
        long mtime = ((FileTime) a.get("lastModifiedTime")).to(TimeUnit.NANOSECONDS);
        String type = switch (mode & 0170000) {
            case 0100000 -> "file";
            case 0040000 -> "dir";
            case 0120000 -> "link";
            default -> "other";
        };
        String tail = switch (type) {
            case "file" -> a.get("size") + " " + TestSupport.sha256(p);
            case "link" -> "-> " + Files.readSymbolicLink(p);
            default -> "";
        };
        long time = type.equals("link") && !LinkTimes.available() ? mtime / 1000 : mtime;   // JDK 17: lutimes
        String perms = type.equals("link") ? "" : Integer.toOctalString(mode & 07777);
        return type + " " + perms + " " + time + " " + tail;
    }

    /** {@code data} as heap chunks of {@code size} bytes, cut anywhere. */
    static Flux<Chunk> chunks(byte[] data, int size) {
        return Flux.range(0, (data.length + size - 1) / size).map(i -> {
            int off = i * size;
            return Chunk.wrap(java.nio.ByteBuffer.wrap(data, off, Math.min(size, data.length - off)).slice());
        });
    }

    /**
     * Files and directories under {@code dir} (not {@code dir} itself, which may be a staged
     * directory) whose names look like the sink's temporary files; none when there is no {@code dir}.
     */
    static List<Path> temporaries(Path dir) throws IOException {
        if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return List.of();
        }
        try (var s = Files.walk(dir)) {
            return s.filter(p -> !p.equals(dir) && p.getFileName().toString().startsWith(".rdflux-")).toList();
        }
    }
}
