package io.rdmaflux.cli.standby;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
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
        Files.createFile(p.socket(0));
        assertThat(p.roomForAnother()).isTrue();
        Files.createFile(p.socket(1));
        assertThat(p.roomForAnother()).isFalse();
        StandbyPlace other = place("fedcba9876543210fedcba98");
        assertThat(other.roomForAnother()).isTrue();
        for (int i = 0; i < 6; i++) {
            Files.createFile(p.dir().resolve(String.format("%024x-0.sock", i)));
        }
        assertThat(other.roomForAnother()).as("8 sockets of the user").isFalse();
    }
}
