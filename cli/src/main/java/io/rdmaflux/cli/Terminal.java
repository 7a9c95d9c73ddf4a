package io.rdmaflux.cli;

import io.rdmaflux.connector.StandardStreams;
import java.io.IOException;
import java.nio.file.Files;

/**
 * Whether a standard stream is a terminal (Linux: its descriptor links to a tty or pty
 * device), for the tools' refusals: a binary stream is never written to a person's screen.
 */
final class Terminal {

    private Terminal() {
    }

    /** Whether standard input (descriptor 0) is a terminal. */
    static boolean isStdin() {
        return is(0);
    }

    /** Whether standard output (descriptor 1) is a terminal. */
    static boolean isStdout() {
        return is(1);
    }

    private static boolean is(int fd) {
        try {
            String t = Files.readSymbolicLink(StandardStreams.path(fd)).toString();
            return t.startsWith("/dev/pts/") || t.startsWith("/dev/tty") || t.equals("/dev/console");
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    /**
     * The refusal of a stream to a terminal, as gzip and zstd say it, and its likely cause:
     * with no FILE, a KEY argument that looks like a file name (a dot or a slash in it) was
     * probably meant as FILE, its key forgotten.
     *
     * @param keyArgument the positional KEY when no FILE followed it; null otherwise
     */
    static UsageException refusal(String keyArgument) {
        String why = "stdout is a terminal; use a file or a pipe, or -f to write the stream there anyway";
        if (keyArgument != null && (keyArgument.contains(".") || keyArgument.contains("/"))) {
            why += " (did you forget the key? '" + keyArgument + "' was taken as KEY, and no FILE followed it)";
        }
        return new UsageException(why);
    }
}
