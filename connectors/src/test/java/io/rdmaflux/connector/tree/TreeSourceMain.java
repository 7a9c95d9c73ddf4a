package io.rdmaflux.connector.tree;

import io.rdmaflux.buffer.Chunk;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/** Writes the tree stream of {@code args[0]} to standard output: the sending side in a process of its own. */
public final class TreeSourceMain {

    private TreeSourceMain() {
    }

    public static void main(String[] args) {
        try (FileChannel out = new FileOutputStream(FileDescriptor.out).getChannel()) {
            TreeSource.of(Path.of(args[0])).open().doOnNext(c -> {
                try {
                    ByteBuffer b = c.buffer();
                    while (b.hasRemaining()) {
                        out.write(b);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } finally {
                    c.release();
                }
            }).doOnDiscard(Chunk.class, Chunk::releaseQuietly).blockLast(Trees.T);
        } catch (Exception e) {
            System.err.println("tree source: " + e.getMessage());
            System.exit(66);
        }
    }
}
