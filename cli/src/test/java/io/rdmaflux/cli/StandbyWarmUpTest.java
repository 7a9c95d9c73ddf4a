package io.rdmaflux.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
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

    /** This JVM's open descriptors, with what each names. */
    private static List<String> fds() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.map(fd -> {
                try {
                    return fd.getFileName() + " " + Files.readSymbolicLink(fd);
                } catch (IOException closed) {
                    return null;   // the listing's own descriptor
                }
            }).filter(s -> s != null && !s.contains("/proc/")).sorted().toList();
        }
    }
}
