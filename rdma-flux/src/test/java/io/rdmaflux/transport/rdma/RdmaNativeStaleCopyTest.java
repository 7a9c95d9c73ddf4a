package io.rdmaflux.transport.rdma;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link RdmaNative#removeStaleCopies}: the extracted library copies of dead JVMs go, a live
 * one's stays. The lock is held by a real second process, as another JVM holds its own.
 */
class RdmaNativeStaleCopyTest {

    @TempDir
    Path tmp;

    @Test
    void removesOnlyTheCopiesOfDeadProcesses() throws Exception {
        Path own = copy("rdma-flux-native-" + ProcessHandle.current().pid() + "-1");
        long dead = deadPid();
        Path stale = copy("rdma-flux-native-" + dead + "-2");
        // A live PID keeps a copy even when nothing holds its lock (its JVM may be about to take it).
        Process alive = new ProcessBuilder("sleep", "600").start();
        Path living = copy("rdma-flux-native-" + alive.pid() + "-3");
        // A held lock keeps a copy even when its PID is not seen (a JVM in another PID namespace).
        Path locked = copy("rdma-flux-native-" + dead + "-4");
        // A copy from before the PID was in the name: nobody can tell whether its JVM lives.
        Path older = copy("rdma-flux-native-1234567890123");
        Process holder = holdLock(locked.resolve("lock"));
        try {
            assertThat(RdmaNative.removeStaleCopies(tmp, own)).containsExactly(stale);
        } finally {
            holder.getOutputStream().close();
            holder.waitFor();
            alive.destroyForcibly().waitFor();
        }
        assertThat(stale).doesNotExist();
        assertThat(own.resolve("libdisni.so")).exists();
        assertThat(living.resolve("libdisni.so")).exists();
        assertThat(locked.resolve("libdisni.so")).exists();
        assertThat(older.resolve("libdisni.so")).exists();

        // Once the lock's holder and the live PID are gone, those two are dead processes' copies too.
        assertThat(RdmaNative.removeStaleCopies(tmp, own)).containsExactlyInAnyOrder(living, locked);
        assertThat(own.resolve("libdisni.so")).exists();
    }

    /** A copy as {@code RdmaNative} makes one: the library and its lock file. */
    private Path copy(String name) throws IOException {
        Path dir = Files.createDirectory(tmp.resolve(name));
        Files.writeString(dir.resolve("libdisni.so"), "not really a library");
        Files.createFile(dir.resolve("lock"));
        return dir;
    }

    /** The PID of a process that has exited. */
    private static long deadPid() throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        return p.pid();
    }

    /** A second JVM that holds a lock on {@code file} until its stdin closes. */
    private static Process holdLock(Path file) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Holder.class.getName(),
                file.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        InputStream out = p.getInputStream();
        byte[] line = out.readNBytes("locked\n".length());
        assertThat(new String(line, StandardCharsets.US_ASCII)).isEqualTo("locked\n");
        return p;
    }

    /** The lock holder's main: locks the file, says so, and waits for the end of its stdin. */
    static final class Holder {
        public static void main(String[] args) throws IOException {
            try (FileChannel ch = FileChannel.open(Path.of(args[0]), StandardOpenOption.WRITE)) {
                ch.lock();
                System.out.print("locked\n");
                System.out.flush();
                System.in.readAllBytes();
            }
        }
    }
}
