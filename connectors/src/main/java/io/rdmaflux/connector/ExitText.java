package io.rdmaflux.connector;

import java.time.Duration;

/**
 * How messages word a command's end: its exit status ("exited with status 3", "was killed by
 * signal 9 (KILL)") and the grace or linger it was given ("500 ms"). Pure text, no processes.
 */
final class ExitText {

    /** Signal names by number, as kill -l gives them on Linux (1 to 15; the rest are shown by number). */
    private static final String[] SIGNALS = {null, "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE",
        "KILL", "USR1", "SEGV", "USR2", "PIPE", "ALRM", "TERM"};

    private ExitText() {
    }

    /**
     * "exited with status 3", "was killed by signal 9 (KILL)". The JDK reports a process killed
     * by signal N as status 128 + N, as shells do; a core dump is not told apart.
     */
    static String describe(int status) {
        if (status > 128 && status <= 128 + 64) {
            int signal = status - 128;
            String name = signal < SIGNALS.length ? SIGNALS[signal] : null;
            return "was killed by signal " + signal + (name != null ? " (" + name + ")" : "");
        }
        return "exited with status " + status + switch (status) {
            case 126 -> " (not executable)";
            case 127 -> " (command not found)";
            default -> "";
        };
    }

    /** "5 s", "500 ms". */
    static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }
}
