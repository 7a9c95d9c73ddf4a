package io.rdmaflux.cli.remote;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The {@code rdflux} that the loopback sshd's sessions run (the tests' {@code --rdflux-path}): a
 * script, named with a space as real paths may be, that runs this checkout's {@code bin/rdflux}
 * with the test JVM's Java and the marker of the test's directory, by which
 * {@code NothingLeftRunning} finds what a test left running.
 */
public final class RemoteRdflux {

    private static final Path HOME = Path.of(System.getProperty("rdflux.home", "..")).toAbsolutePath().normalize();

    private RemoteRdflux() {
    }

    /** Writes {@code dir/rdflux on remote} (once: an existing one is kept) and returns its path. */
    public static Path in(Path dir) throws IOException {
        return in(dir, "rdflux on remote", "");
    }

    /**
     * Writes {@code dir/name} (once), an rdflux whose JVMs get {@code javaOptions} too, appended
     * after the marker as a host's own RDFLUX_JAVA_OPTS are (a smaller direct-memory limit: a
     * smaller host), and returns its path.
     */
    public static Path in(Path dir, String name, String javaOptions) throws IOException {
        Path tool = dir.resolve(name);
        if (!Files.exists(tool)) {
            Files.writeString(tool, "#!/bin/sh\n"
                    + "export JAVA_HOME=" + ShellWords.quote(System.getProperty("java.home")) + "\n"
                    + "export RDFLUX_JAVA_OPTS=" + ShellWords.quote(("-Drdflux.test.marker=" + dir + " " + javaOptions).strip()) + "\n"
                    + "exec " + ShellWords.quote(HOME.resolve("bin/rdflux").toString()) + " \"$@\"\n");
            Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        return tool;
    }
}
