package io.rdmaflux.cli;

import io.rdmaflux.testing.MarkedProcesses;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The standby JVMs a test's tools left (docs/remote.md, "The standby JVM"): found by the test's directory, and ended. */
final class StandbyJvms {

    private StandbyJvms() {
    }

    /** The live standby JVMs whose environment names {@code dir}: java with "--standby" in its command line. */
    static List<Long> of(Path dir) {
        List<Long> found = new ArrayList<>();
        for (long pid : MarkedProcesses.find(dir.toString())) {
            try {
                String cmdline = Files.readString(Path.of("/proc", Long.toString(pid), "cmdline"), StandardCharsets.ISO_8859_1);
                // The JVM, not the shell that leads its session (whose arguments are the JVM's command).
                if (cmdline.contains("\0--standby\0") && cmdline.substring(0, cmdline.indexOf('\0')).endsWith("java")) {
                    found.add(pid);
                }
            } catch (IOException gone) {
                // Ended meanwhile.
            }
        }
        return found;
    }

    /** Ends them (they would wait their idle time), and the successors a served one starts as it ends. */
    static void endAll(Path dir) {
        for (int round = 0; round < 5 && !of(dir).isEmpty(); round++) {
            for (long pid : of(dir)) {
                ProcessHandle.of(pid).ifPresent(p -> {
                    p.destroy();
                    p.onExit().orTimeout(30, TimeUnit.SECONDS).exceptionally(e -> null).join();
                    p.destroyForcibly();
                });
            }
        }
    }
}
