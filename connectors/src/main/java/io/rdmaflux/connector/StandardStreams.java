package io.rdmaflux.connector;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

    /** Links followed at most, as the kernel does (ELOOP past 40). */
    private static final int MAX_HOPS = 40;
    private static final Pattern FD_PATH = Pattern.compile(
            "/(?:dev/fd|proc/(?:self|thread-self|(\\d+)(?:/task/\\d+)?)/fd)/(\\d+)");

    /**
     * The path to open for a file the user named, {@code path} itself in a cold run. While a
     * call is served ({@link #use}), a path that names, or reaches through symbolic links, a
     * standard stream of this process ({@code /dev/stdin}, {@code /dev/stdout}, {@code /dev/stderr},
     * {@code /dev/fd/N}, {@code /proc/self/fd/N}, {@code /proc/thread-self/fd/N},
     * {@code /proc/<this pid>/fd/N}) means the caller's stream, not this process's own
     * descriptor (the standby's /dev/null): the holder's path of that stream is returned. A
     * descriptor above 2 ({@code /dev/fd/63} of a shell's {@code <(...)}, {@code --key-file
     * <(pass show key)}) is the caller's own, open in the client that waits for the call: its
     * {@code /proc/PID/fd/N}, which opens as {@code /dev/fd/N} would have in a fresh process. The
     * links are followed one at a time, lexically, at most 40.
     *
     * @throws NotPassed when the path reaches a descriptor of the caller that cannot be named
     */
    public static Path resolve(Path path) throws NotPassed {
        if (own()) {
            return path;
        }
        Path p = path.toAbsolutePath().normalize();
        for (int hops = 0; hops <= MAX_HOPS && p.getParent() != null; hops++) {
            // The name as written, then with its directory's links resolved (/dev/fd is one).
            Path q = parent(p).resolve(p.getFileName());
            int fd = Math.max(descriptor(p), descriptor(q));
            if (fd > 2) {
                return callerDescriptor(fd);
            }
            if (fd >= 0) {
                return path(fd);
            }
            if (!Files.isSymbolicLink(q)) {
                return path;
            }
            try {
                p = q.getParent().resolve(Files.readSymbolicLink(q)).normalize();
            } catch (IOException | UnsupportedOperationException e) {
                return path;  // opening it then fails (or not) as it would in a cold run
            }
        }
        return path;
    }

    /**
     * The caller's descriptor {@code fd}, beside its standard streams in its {@code /proc/PID/fd}
     * (the client keeps every descriptor it was given open while the call runs).
     */
    private static Path callerDescriptor(int fd) throws NotPassed {
        Path dir = path(0).getParent();
        if (fd == Integer.MAX_VALUE || dir == null || !dir.getFileName().toString().equals("fd")
                || dir.equals(Path.of("/proc/self/fd"))) {
            throw new NotPassed(fd);
        }
        return dir.resolve(Integer.toString(fd));
    }

    /** The real path of {@code p}'s directory (a link on the way, as /dev/fd is), else its lexical one. */
    private static Path parent(Path p) {
        Path dir = p.getParent();
        try {
            return dir.toRealPath();
        } catch (IOException e) {
            return dir;
        }
    }

    /** The descriptor of this process that {@code p} names, or -1. */
    private static int descriptor(Path p) {
        String s = p.toString();
        switch (s) {
            case "/dev/stdin":
                return 0;
            case "/dev/stdout":
                return 1;
            case "/dev/stderr":
                return 2;
            default:
                break;
        }
        Matcher m = FD_PATH.matcher(s);
        if (!m.matches() || m.group(1) != null && Long.parseLong(m.group(1)) != ProcessHandle.current().pid()) {
            return -1;
        }
        try {
            return Integer.parseInt(m.group(2));
        } catch (NumberFormatException e) {
            return Integer.MAX_VALUE;
        }
    }

    /**
     * A file the user named is a descriptor of the calling process that a served call cannot
     * name (a number too large to be one): the call fails with this one line rather than read
     * or write another file.
     */
    public static final class NotPassed extends IOException {

        private static final long serialVersionUID = 1L;

        NotPassed(int fd) {
            super("descriptor " + (fd == Integer.MAX_VALUE ? "N" : String.valueOf(fd))
                    + " of the calling process cannot be reached by its standby JVM (RDFLUX_STANDBY=no runs the tool on its own)");
        }
    }
}
