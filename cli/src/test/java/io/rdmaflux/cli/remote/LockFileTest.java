package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lock files that their holders remove ({@link LockFile}): the kernel's list tells who holds
 * one, and takers racing a holder that removes the name never hold the lock two at a time.
 */
class LockFileTest {

    private static final int RACERS = 3;
    private static final int TIMES = 400;

    @TempDir
    Path dir;

    @Test
    void theKernelsListShowsALockThisProcessHoldsAndNoneOnceReleased() throws Exception {
        Path path = dir.resolve("a.lock");
        FileLock lock = LockFile.tryTake(path);
        assertThat(lock).isNotNull();
        assertThat(LockFile.locksNow().held(path)).isTrue();
        assertThat(LockFile.namesLocked(path)).isTrue();
        assertThat(LockFile.tryTake(path)).as("held already: not opened again").isNull();
        assertThat(LockFile.locksNow().held(path)).as("still held after the second try").isTrue();

        LockFile.removeName(path);
        assertThat(path).doesNotExist();
        lock.channel().close();
        assertThat(LockFile.locksNow().held(path)).isFalse();
    }

    /**
     * Processes that take the lock, check no other holds it, remove its name and release it, over
     * and over: each taker that locked a file its holder removed meanwhile must see so and take
     * the path's new file. Without that check two hold the lock at once within a few hundred
     * rounds (the file each locked is another), and a racer says "two holders".
     */
    @Test
    void takersRacingHoldersThatRemoveTheNameNeverHoldItTwoAtATime() throws Exception {
        Path lock = dir.resolve("raced.lock");
        Path mine = dir.resolve("holder");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> racers = new ArrayList<>();
        try {
            for (int i = 0; i < RACERS; i++) {
                racers.add(new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                        LockRacer.class.getName(), lock.toString(), mine.toString(), Integer.toString(TIMES))
                        .redirectErrorStream(true).start());
            }
            for (Process p : racers) {
                assertThat(p.waitFor(240, TimeUnit.SECONDS)).as("a racer ended").isTrue();
                assertThat(output(p)).isEqualTo("taken " + TIMES);
                assertThat(p.exitValue()).isZero();
            }
            assertThat(lock).as("the last holder removed it").doesNotExist();
        } finally {
            for (Process p : racers) {
                p.destroyForcibly().waitFor(60, TimeUnit.SECONDS);
            }
        }
    }

    private static String output(Process p) throws IOException {
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    }
}
