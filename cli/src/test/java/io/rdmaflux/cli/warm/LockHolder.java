package io.rdmaflux.cli.warm;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A process that holds a file's lock as a starter's look at a warm agent's place does
 * ({@code WarmStart.held}), for as long as a test says: it locks {@code args[0]}, prints
 * {@code locked}, and releases the lock and exits at the end of its standard input.
 */
public final class LockHolder {

    private LockHolder() {
    }

    public static void main(String[] args) throws IOException {
        try (FileChannel f = FileChannel.open(Path.of(args[0]), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             FileLock lock = f.lock()) {
            System.out.println("locked");
            System.out.flush();
            while (System.in.read() >= 0) {
                // held until the test closes our stdin
            }
        }
    }
}
