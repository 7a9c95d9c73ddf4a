package io.rdmaflux.cli.remote;

import java.nio.channels.FileLock;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A taker of a lock file ({@link LockFile}) racing others, for {@link LockFileTest}: {@code
 * args[2]} times it takes {@code args[0]}'s lock, makes {@code args[1]} (which must not exist: no
 * other process holds the lock), removes it, removes the lock file's name and releases the lock, as
 * a standby or a warm daemon does as it ends. Prints {@code taken N}, or {@code two holders} and
 * exits 3 when another process held the lock at the same time.
 */
public final class LockRacer {

    private LockRacer() {
    }

    public static void main(String[] args) throws Exception {
        Path lock = Path.of(args[0]);
        Path mine = Path.of(args[1]);
        int times = Integer.parseInt(args[2]);
        int taken = 0;
        while (taken < times) {
            FileLock l = LockFile.tryTake(lock);
            if (l == null) {
                Thread.onSpinWait();
                continue;
            }
            try {
                Files.createFile(mine);
            } catch (FileAlreadyExistsException e) {
                System.out.println("two holders");
                System.exit(3);
            }
            Files.delete(mine);
            LockFile.removeName(lock);
            l.channel().close();
            taken++;
        }
        System.out.println("taken " + taken);
    }
}
