package io.rdmaflux.connector;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Where this process's standard input, output and error are: the one place the tools ask, so
 * that a process can serve a call whose streams are another process's (the standby JVM, which
 * opens its client's descriptors through {@code /proc/PID/fd/N}). By default, and in every cold
 * run, they are file descriptors 0, 1 and 2, described by {@code /proc/self/fd/N}, exactly as
 * the tools used them before this holder existed.
 */
public final class StandardStreams {

    /** Descriptors 0, 1, 2 and the paths that describe them (stat, readlink). */
    private record Streams(FileDescriptor in, FileDescriptor out, FileDescriptor err, List<Path> paths) {
    }

    private static final Streams OWN = new Streams(FileDescriptor.in, FileDescriptor.out, FileDescriptor.err,
            List.of(Path.of("/proc/self/fd/0"), Path.of("/proc/self/fd/1"), Path.of("/proc/self/fd/2")));

    private static volatile Streams current = OWN;
    /** The channel on standard output, one for the process (a new one per write would be closed by nobody). */
    private static volatile FileChannel outChannel;

    private StandardStreams() {
    }

    /**
     * From now on the standard streams are these descriptors, described by these paths (each
     * path leads to the same open file as its descriptor). Called once, before the call runs.
     */
    public static synchronized void use(FileDescriptor in, FileDescriptor out, FileDescriptor err,
                                        Path inPath, Path outPath, Path errPath) {
        current = new Streams(Objects.requireNonNull(in), Objects.requireNonNull(out), Objects.requireNonNull(err),
                List.of(inPath, outPath, errPath));
        outChannel = null;
    }

    /** Back to this process's own descriptors (tests, after {@link #use}). */
    public static synchronized void reset() {
        current = OWN;
        outChannel = null;
    }

    /** Standard input's descriptor. */
    public static FileDescriptor in() {
        return current.in();
    }

    /** Standard output's descriptor. */
    public static FileDescriptor out() {
        return current.out();
    }

    /** Standard error's descriptor. */
    public static FileDescriptor err() {
        return current.err();
    }

    /** A channel on standard output, the same one each time (never closed: stdout stays open). */
    public static FileChannel outChannel() {
        FileChannel c = outChannel;
        if (c == null) {
            synchronized (StandardStreams.class) {
                c = outChannel;
                if (c == null) {
                    c = new FileOutputStream(current.out()).getChannel();
                    outChannel = c;
                }
            }
        }
        return c;
    }

    /**
     * A path that leads to standard stream {@code fd} (0, 1 or 2), to stat or readlink it:
     * {@code /proc/self/fd/N} in a cold run.
     */
    public static Path path(int fd) {
        return current.paths().get(fd);
    }

    /** Whether the streams are this process's own descriptors 0, 1 and 2 (a cold run). */
    public static boolean own() {
        return current == OWN;
    }
}
