package io.rdmaflux.cli.remote;

import java.io.File;
import java.io.IOException;

/**
 * Starts a process that outlives its starter (a standby JVM, a warm agent daemon): its stdin
 * is /dev/null and its stdout and stderr are discarded, so it holds none of the starter's
 * streams, which a caller (a shell's pipe, an ssh session) waits on until every writer closes.
 * The caller's own argv puts it in a session of its own (setsid).
 */
public final class Detached {

    private static final File NOTHING = new File("/dev/null");

    private Detached() {
    }

    /** Starts {@code pb} with no stream of this process's; its other settings (argv, environment) stay. */
    public static Process start(ProcessBuilder pb) throws IOException {
        return pb.redirectInput(ProcessBuilder.Redirect.from(NOTHING))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
    }
}
