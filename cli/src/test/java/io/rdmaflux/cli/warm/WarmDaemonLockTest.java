package io.rdmaflux.cli.warm;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.cli.remote.LockFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A warm agent daemon's lock file: held while it serves, removed as it ends, so none stays per
 * install (jar) ever served; a second daemon finds it held and leaves it alone.
 */
class WarmDaemonLockTest {

    private static final String KEY = "0123456789abcdef01234567";

    @TempDir
    Path dir;

    @Test
    void anIdleDaemonEndsLeavingNeitherSocketNorLockFile() {
        WarmPlace place = new WarmPlace(dir.resolve("agent"), KEY);
        WarmDaemon daemon = new WarmDaemon(place, Duration.ofMillis(300), null, s -> { });
        assertThat(daemon.run()).isZero();
        assertThat(place.socket()).doesNotExist();
        assertThat(place.lock()).doesNotExist();
        assertThat(place.dir()).isEmptyDirectory();
    }

    @Test
    void aDaemonThatFindsTheLockHeldLeavesTheHoldersFile() throws Exception {
        WarmPlace place = new WarmPlace(dir.resolve("agent"), KEY);
        Files.createDirectory(place.dir(), java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
        try (LockFile held = LockFile.tryTake(place.lock())) {
            assertThat(held).isNotNull();
            assertThat(new WarmDaemon(place, Duration.ofMinutes(5), null, s -> { }).run()).isZero();
            assertThat(place.lock()).as("the holder's").exists();
        }
    }
}
