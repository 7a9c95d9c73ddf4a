package io.rdmaflux.cli.remote;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HostMemory} reads the RAM and the control group's limit from files laid out as the
 * kernel's, made in a temporary directory (a test must not set a limit on a group of the
 * machine's own): cgroup v2 and v1, a limit set on a group above this process's, none, a group
 * the mount does not show (a container's namespace), and this machine's own files, read as they are.
 */
class HostMemoryTest {

    private static final long GIB = 1L << 30;

    @TempDir
    Path dir;

    private Path meminfo(long kib) throws IOException {
        return Files.writeString(dir.resolve("meminfo"), "MemTotal:       " + kib + " kB\nMemFree:        1 kB\n");
    }

    private Path selfCgroup(String text) throws IOException {
        return Files.writeString(dir.resolve("cgroup"), text);
    }

    private void limit(String path, String file, String value) throws IOException {
        Path d = dir.resolve("fs").resolve(path);
        Files.createDirectories(d);
        Files.writeString(d.resolve(file), value + "\n");
    }

    @Test
    void cgroupV2TheSmallestLimitOnTheWayUp() throws IOException {
        Files.createDirectories(dir.resolve("fs"));
        Files.writeString(dir.resolve("fs/cgroup.controllers"), "cpu memory pids\n");
        limit("user.slice", "memory.max", Long.toString(3 * GIB));
        limit("user.slice/job.scope", "memory.max", "max");
        HostMemory.Room room = HostMemory.room(meminfo(16L << 20), selfCgroup("0::/user.slice/job.scope\n"), dir.resolve("fs"));
        assertThat(room).isEqualTo(new HostMemory.Room(3 * GIB, true));
    }

    @Test
    void cgroupV1MemoryControllerAmongOthers() throws IOException {
        limit("memory/docker/abc", "memory.limit_in_bytes", Long.toString(GIB));
        limit("memory", "memory.limit_in_bytes", "9223372036854771712");
        Path self = selfCgroup("5:cpu,cpuacct:/docker/abc\n4:memory:/docker/abc\n0::/\n");
        assertThat(HostMemory.room(meminfo(16L << 20), self, dir.resolve("fs"))).isEqualTo(new HostMemory.Room(GIB, true));
    }

    @Test
    void aGroupTheMountDoesNotShowIsReadWhereTheMountBegins() throws IOException {
        // Inside a container without a cgroup namespace: its own group is the mount's root.
        limit("memory", "memory.limit_in_bytes", Long.toString(2 * GIB));
        Path self = selfCgroup("4:memory:/docker/0123456789\n");
        assertThat(HostMemory.cgroupLimit(self, dir.resolve("fs"))).isEqualTo(2 * GIB);
    }

    @Test
    void noLimitOrALargerOneLeavesTheRam() throws IOException {
        limit("memory/a", "memory.limit_in_bytes", "9223372036854771712");
        assertThat(HostMemory.room(meminfo(4L << 20), selfCgroup("4:memory:/a\n"), dir.resolve("fs")))
                .isEqualTo(new HostMemory.Room(4 * GIB, false));
        limit("memory/b", "memory.limit_in_bytes", Long.toString(64 * GIB));
        assertThat(HostMemory.room(meminfo(4L << 20), selfCgroup("4:memory:/b\n"), dir.resolve("fs")))
                .isEqualTo(new HostMemory.Room(4 * GIB, false));
        // Unreadable files: nothing known, no cap.
        assertThat(HostMemory.room(dir.resolve("none"), dir.resolve("none"), dir.resolve("none")))
                .isEqualTo(new HostMemory.Room(0, false));
    }

    @Test
    void aPathThatClimbsOutOfTheMountIsNotFollowed() throws IOException {
        limit("memory", "memory.limit_in_bytes", Long.toString(8 * GIB));
        Files.writeString(dir.resolve("memory.limit_in_bytes"), Long.toString(GIB));
        assertThat(HostMemory.cgroupLimit(selfCgroup("4:memory:/../..\n"), dir.resolve("fs"))).isEqualTo(8 * GIB);
    }

    @Test
    void thisMachinesOwnFilesGiveAnAmountNoLargerThanItsRam() {
        HostMemory.Room room = HostMemory.room();
        long ram = HostMemory.memTotal(Path.of("/proc/meminfo"));
        assertThat(ram).as("Linux has /proc/meminfo").isPositive();
        assertThat(room.bytes()).isPositive().isLessThanOrEqualTo(ram);
        assertThat(room.group()).isEqualTo(room.bytes() < ram);
    }
}
