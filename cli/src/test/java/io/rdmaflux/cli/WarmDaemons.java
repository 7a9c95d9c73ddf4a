package io.rdmaflux.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The warm agent's daemons a test's tools left (docs/remote.md, "The warm agent"): found by their --warm-dir, and ended. */
final class WarmDaemons {

    private WarmDaemons() {
    }

    /** The live daemons started with {@code --daemon ... --warm-dir warmDir}. */
    static List<ProcessHandle> of(Path warmDir) {
        return ProcessHandle.allProcesses().filter(p -> p.info().arguments()
                .map(a -> List.of(a).contains("--daemon") && List.of(a).contains("--warm-dir")
                        && List.of(a).contains(warmDir.toString()))
                .orElse(false)).toList();
    }

    /** Ends them (SIGTERM), each waited for up to 30 s: they would otherwise stay their idle time. */
    static void end(Path warmDir) {
        for (ProcessHandle p : of(warmDir)) {
            p.destroy();
            p.onExit().orTimeout(30, TimeUnit.SECONDS).exceptionally(e -> null).join();
        }
    }
}
