package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.Pipe;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The standby's warm-ups of a remote rdcp's path (StandbyWarmUp.remoteCopy) and of a tree copy
 * (StandbyWarmUp.treeCopy) run to their end in this JVM and leave nothing a call could see: no
 * descriptor open, no process or writer thread running, no file.
 */
class StandbyWarmUpTest {

    @Test
    void theTreeCopysWarmUpCopiesATreeAndLeavesNoFileDescriptorOrThread(@TempDir Path under) throws IOException {
        StandbyWarmUp.treeCopy(under);   // first-use descriptors and pools of the JDK and Reactor made once
        List<String> fds = fds();

        assertThat(StandbyWarmUp.treeCopy(under)).as("copied and removed").isTrue();

        try (Stream<Path> left = Files.list(under)) {
            assertThat(left.toList()).as("left under the temporary root").isEmpty();
        }
        assertThat(fds()).as("open descriptors").isEqualTo(fds);
        assertThat(Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .map(Thread::getName).filter(n -> n.startsWith("rdflux-tree-writer")).toList())
                .as("the sink's writer threads").isEmpty();
    }

    /**
     * What a warm-up killed outright (SIGKILL: no hook runs) left is removed by the next one:
     * only a directory named for a process that is gone; a live process's, and any other name, stay.
     */
    @Test
    void theTreeCopysWarmUpRemovesWhatADeadWarmUpLeftAndNothingElse(@TempDir Path under) throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path dead = Files.createDirectories(under.resolve(WarmUpDirectory.PREFIX + gone.pid() + "-123/src/lib0"));
        Files.write(dead.resolve("f0.js"), new byte[10]);
        Path live = Files.createDirectory(under.resolve(WarmUpDirectory.PREFIX + ProcessHandle.current().pid() + "-456"));
        Path unnamed = Files.createDirectory(under.resolve(WarmUpDirectory.PREFIX + "789"));
        Path notADirectory = Files.createSymbolicLink(under.resolve(WarmUpDirectory.PREFIX + gone.pid() + "-7"), dead);

        assertThat(StandbyWarmUp.treeCopy(under)).as("copied and removed").isTrue();

        try (Stream<Path> left = Files.list(under)) {
            assertThat(left.toList()).containsExactlyInAnyOrder(live, unnamed, notADirectory);
        }
    }

    @Test
    void theRemoteCopysWarmUpRunsThroughAndLeavesNoDescriptorOrProcess() throws IOException {
        StandbyWarmUp.remoteCopy();   // the JDK's own first-use descriptors (the jar, /dev/random) opened once
        List<String> fds = fds();
        List<ProcessHandle> children = ProcessHandle.current().children().filter(ProcessHandle::isAlive).toList();

        assertThat(StandbyWarmUp.remoteCopy()).as("ran to its end").isTrue();

        assertThat(fds()).as("open descriptors").isEqualTo(fds);
        assertThat(ProcessHandle.current().children().filter(ProcessHandle::isAlive).toList())
                .as("child processes").isEqualTo(children);
    }

    /**
     * What the descriptor snapshots below see: a socket, a pipe, an epoll or event descriptor,
     * a file the warm-up made stay in; what another thread of this JVM may hold open for a
     * moment while the warm-up runs does not (a cgroup file under /sys the JDK's container
     * metrics read, a /proc file, a jar or native library the class loader opens).
     */
    @Test
    void theDescriptorSnapshotsIgnoreOtherThreadsFilesButSeeASocketAPipeAndAFile(@TempDir Path under) throws IOException {
        List<String> before = fds();
        try (FileChannel sys = FileChannel.open(Path.of("/sys/devices/system/cpu/online"));
             FileChannel jar = FileChannel.open(jarOf(Test.class))) {
            assertThat(fds()).as("a /sys file and a jar open meanwhile").isEqualTo(before);
        }
        Pipe pipe = Pipe.open();
        try (Pipe.SourceChannel source = pipe.source(); Pipe.SinkChannel sink = pipe.sink()) {
            assertThat(fds()).as("a pipe left open").isNotEqualTo(before);
        }
        try (SocketChannel socket = SocketChannel.open()) {
            assertThat(fds()).as("a socket left open").isNotEqualTo(before);
        }
        try (FileChannel made = FileChannel.open(Files.createFile(under.resolve("made")))) {
            assertThat(fds()).as("a file left open").isNotEqualTo(before);
        }
    }

    private static Path jarOf(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * This JVM's open descriptors that a warm-up could leak, with what each names. Another
     * thread's may come and go meanwhile: a cgroup file under /sys (the JDK's container
     * metrics), /proc (this very listing), a jar or library (class loading); they are left
     * out, as once a /sys/fs/cgroup descriptor of another thread failed the comparison.
     */
    private static List<String> fds() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.map(fd -> {
                try {
                    return fd.getFileName() + " " + Files.readSymbolicLink(fd);
                } catch (IOException closed) {
                    return null;   // the listing's own descriptor, or one closed meanwhile
                }
            }).filter(s -> s != null && warmUpsBusiness(s.substring(s.indexOf(' ') + 1))).sorted().toList();
        }
    }

    /** Whether a descriptor naming {@code target} is one a warm-up could have left open. */
    private static boolean warmUpsBusiness(String target) {
        return !(target.startsWith("/sys/") || target.startsWith("/proc/")
                || target.endsWith(".jar") || target.endsWith(".jsa") || target.endsWith(".so")
                || target.endsWith("/lib/modules"));
    }
}
