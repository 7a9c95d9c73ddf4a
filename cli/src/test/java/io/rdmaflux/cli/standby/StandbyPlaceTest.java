package io.rdmaflux.cli.standby;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.cli.warm.LockHolder;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where standbys wait, how they take slots, and the caps on how many wait. */
class StandbyPlaceTest {

    static final String KEY = "0123456789abcdef01234567";

    @TempDir
    Path home;

    private StandbyPlace place(String key) {
        return StandbyPlace.of(Map.of("HOME", home.toString()), key);
    }

    @Test
    void placeIsTheUsersPrivateDirectoryAndTheKeyMustBe24HexDigits() {
        assertThat(place(KEY).dir()).isEqualTo(home.resolve(".cache/rdflux/standby"));
        assertThat(StandbyPlace.of(Map.of("XDG_RUNTIME_DIR", "/run/user/7", "HOME", "/h"), KEY).dir())
                .isEqualTo(Path.of("/run/user/7/rdflux/standby"));
        assertThat(place(KEY).socket(1)).isEqualTo(home.resolve(".cache/rdflux/standby/" + KEY + "-1.sock"));
        assertThat(place("0123456789ABCDEF01234567")).isNull();
        assertThat(place("0123456789abcdef0123456")).isNull();
        assertThat(place("../../../../etc/passwd00")).isNull();
        assertThat(place(null)).isNull();
        assertThat(StandbyPlace.of(Map.of(), KEY)).isNull();
    }

    @Test
    void aDirectoryOpenToOthersIsRefused() throws Exception {
        StandbyPlace p = place(KEY);
        Files.createDirectories(p.dir());
        Files.setPosixFilePermissions(p.dir(), PosixFilePermissions.fromString("rwxr-x---"));
        assertThat(p.ensure()).contains("open to others");
        Files.setPosixFilePermissions(p.dir(), PosixFilePermissions.fromString("rwx------"));
        assertThat(p.ensure()).isNull();
    }

    @Test
    void twoSlotsPerKeyThenNone() throws Exception {
        StandbyPlace p = place(KEY);
        assertThat(p.ensure()).isNull();
        StandbyPlace.Slot first = p.take();
        StandbyPlace.Slot second = p.take();
        assertThat(first.number()).isZero();
        assertThat(second.number()).isEqualTo(1);
        assertThat(p.take()).isNull();
        // A slot whose standby ended (its lock released) is free again.
        first.lock().release();
        first.lock().channel().close();
        StandbyPlace.Slot again = p.take();
        assertThat(again.number()).isZero();
        again.lock().channel().close();
        second.lock().channel().close();
    }

    @Test
    void roomForAnotherCountsTheKeysSocketsAndTheUsers() throws Exception {
        StandbyPlace p = place(KEY);
        assertThat(p.roomForAnother()).isTrue();   // no directory yet
        assertThat(p.ensure()).isNull();
        List<FileChannel> locks = new ArrayList<>();
        try {
            // Each socket has its live standby: its slot's lock held (by this JVM, as the kernel lists it).
            locks.add(p.take().lock().channel());
            Files.createFile(p.socket(0));
            assertThat(p.roomForAnother()).isTrue();
            locks.add(p.take().lock().channel());
            Files.createFile(p.socket(1));
            assertThat(p.roomForAnother()).isFalse();
            StandbyPlace other = place("fedcba9876543210fedcba98");
            assertThat(other.roomForAnother()).isTrue();
            for (int i = 0; i < 6; i++) {
                StandbyPlace more = place(String.format("%024x", i));
                locks.add(more.take().lock().channel());
                Files.createFile(more.socket(0));
            }
            assertThat(other.roomForAnother()).as("8 sockets of the user").isFalse();
            assertThat(sockets(p)).hasSize(8);
        } finally {
            for (FileChannel c : locks) {
                c.close();
            }
        }
    }

    /**
     * A socket whose slot's lock no process holds was left by a standby killed outright: it
     * does not count, and its name is removed. (Before, two such names kept their key from
     * ever getting a standby again.) The lock is a real other process's, killed with SIGKILL.
     */
    @Test
    void aSocketWhoseSlotLockNoProcessHoldsDoesNotCountAndIsRemoved() throws Exception {
        StandbyPlace p = place(KEY);
        assertThat(p.ensure()).isNull();
        Process holder = holdLock(p.lock(0));
        Process holder1 = holdLock(p.lock(1));
        try {
            Files.createFile(p.socket(0));
            Files.createFile(p.socket(1));
            assertThat(p.roomForAnother()).as("two live standbys").isFalse();
            assertThat(sockets(p)).hasSize(2);

            holder.destroyForcibly();   // SIGKILL: no clean-up of its own
            assertThat(holder.waitFor(60, TimeUnit.SECONDS)).isTrue();

            assertThat(p.roomForAnother()).as("one live standby, one name left").isTrue();
            assertThat(sockets(p)).containsExactly(p.socket(1));
        } finally {
            holder.destroyForcibly().waitFor(60, TimeUnit.SECONDS);
            holder1.destroyForcibly().waitFor(60, TimeUnit.SECONDS);
        }
    }

    /** A process of its own holding {@code lock}'s lock until it is killed. */
    private static Process holdLock(Path lock) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                LockHolder.class.getName(), lock.toString()).redirectErrorStream(true).start();
        String line = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
        assertThat(line).as("the holder locked it").isEqualTo("locked");
        return p;
    }

    private static List<Path> sockets(StandbyPlace p) throws Exception {
        try (Stream<Path> files = Files.list(p.dir())) {
            return files.filter(f -> f.getFileName().toString().endsWith(".sock")).sorted().toList();
        }
    }
}
