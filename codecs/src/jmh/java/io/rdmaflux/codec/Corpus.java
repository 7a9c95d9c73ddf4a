package io.rdmaflux.codec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Real mixed data for benchmarks, like a tar of /usr: the regular files under the given roots
 * (default /usr/lib, /usr/share, /usr/bin), in sorted path order, concatenated up to a size.
 * Set -Dcorpus.file=PATH to use a file of your own instead.
 */
final class Corpus {

    private Corpus() {
    }

    static byte[] load(int size) {
        String file = System.getProperty("corpus.file");
        try {
            if (file != null) {
                byte[] all = Files.readAllBytes(Paths.get(file));
                return all.length <= size ? all : java.util.Arrays.copyOf(all, size);
            }
            byte[] out = new byte[size];
            int filled = 0;
            for (String root : System.getProperty("corpus.roots", "/usr/lib,/usr/share,/usr/bin").split(",")) {
                List<Path> files;
                try (Stream<Path> s = Files.walk(Paths.get(root))) {
                    files = s.filter(p -> Files.isRegularFile(p) && !Files.isSymbolicLink(p)).sorted().collect(Collectors.toList());
                } catch (IOException | UncheckedIOException e) {
                    continue;
                }
                Iterator<Path> it = files.iterator();
                while (it.hasNext() && filled < size) {
                    Path p = it.next();
                    try {
                        if (Files.size(p) > (16 << 20)) {
                            continue;
                        }
                        byte[] b = Files.readAllBytes(p);
                        int n = Math.min(b.length, size - filled);
                        System.arraycopy(b, 0, out, filled, n);
                        filled += n;
                    } catch (IOException | SecurityException e) {
                        // unreadable: skip
                    }
                }
            }
            return filled == size ? out : java.util.Arrays.copyOf(out, filled);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
