package io.rdmaflux.cli.standby;

import io.rdmaflux.cli.standby.StandbyContext.Fd;
import io.rdmaflux.cli.standby.StandbyContext.Kind;
import io.rdmaflux.connector.StandardStreams;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A client's standard descriptors, opened anew through {@code /proc/PID/fd/N}: 0 for reading,
 * 1 and 2 for writing. Each open is a new open file description, so each is put where the
 * client's is: at its offset when a regular file, in append mode when the client's is; the
 * client moves its own offsets to the final ones ({@link #finalOffset}) when the call ends.
 */
public final class ClientStreams implements Closeable {

    private final List<Path> paths;
    private final List<FileDescriptor> fds;
    private final List<Closeable> opened;
    private final List<Fd> specs;

    private ClientStreams(List<Path> paths, List<FileDescriptor> fds, List<Closeable> opened, List<Fd> specs) {
        this.paths = paths;
        this.fds = fds;
        this.opened = opened;
        this.specs = specs;
    }

    /** Opens the client's fds 0, 1 and 2 under {@code proc} ({@code /proc} but in tests); closes what it opened on failure. */
    public static ClientStreams open(StandbyContext context, Path proc) throws IOException {
        Path fdDir = proc.resolve(Long.toString(context.pid())).resolve("fd");
        List<Path> paths = new ArrayList<>();
        List<FileDescriptor> fds = new ArrayList<>();
        List<Closeable> opened = new ArrayList<>();
        try {
            for (Fd fd : context.fds()) {
                Path p = fdDir.resolve(Integer.toString(fd.number()));
                if (fd.kind() == Kind.PIPE) {
                    checkAnonymous(p);
                }
                paths.add(p);
                fds.add(fd.number() == 0 ? openRead(p, fd, opened) : openWrite(p, fd, opened));
            }
        } catch (IOException | RuntimeException e) {
            closeAll(opened);
            throw e;
        }
        return new ClientStreams(List.copyOf(paths), List.copyOf(fds), opened, context.fds());
    }

    /**
     * Opening a named FIFO again waits for a process at its other end, which may never come
     * (its writer wrote and left; the client's descriptor still holds the data): this process
     * would hang in open(2) for good. Only a shell's anonymous pipe ({@code pipe:[N]}), which
     * opens at once, is taken; for a FIFO the client runs the JVM itself.
     */
    private static void checkAnonymous(Path p) throws IOException {
        String target = Files.readSymbolicLink(p).toString();
        if (!target.startsWith("pipe:")) {
            throw new IOException(p + " is a named FIFO (" + target + "), which a standby does not open");
        }
    }

    private static FileDescriptor openRead(Path p, Fd fd, List<Closeable> opened) throws IOException {
        FileInputStream in = new FileInputStream(p.toFile());
        opened.add(in);
        if (fd.kind() == Kind.REG) {
            in.getChannel().position(fd.pos());
        }
        return in.getFD();
    }

    private static FileDescriptor openWrite(Path p, Fd fd, List<Closeable> opened) throws IOException {
        if (fd.append()) {
            FileOutputStream out = new FileOutputStream(p.toFile(), true);
            opened.add(out);
            return out.getFD();
        }
        if (fd.kind() == Kind.REG || fd.kind() == Kind.BLK) {
            // Neither truncated (what is before pos was written by others: { echo a; rdrecv; } > f)
            // nor appended to: read-write, at the client's offset, as the client's descriptor writes.
            RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw");
            opened.add(f);
            f.seek(fd.pos());
            return f.getFD();
        }
        // A pipe, terminal or character device: write-only (read-write would keep a pipe's
        // reader alive, and a writer would never see its reader go), truncation means nothing.
        FileOutputStream out = new FileOutputStream(p.toFile());
        opened.add(out);
        return out.getFD();
    }

    /**
     * Makes these the process's standard streams: the holder the tools use ({@link
     * StandardStreams}) and System.in, out and err, built as the JVM builds its own.
     */
    public void install() {
        StandardStreams.use(fd(0), fd(1), fd(2), path(0), path(1), path(2));
        System.setIn(new BufferedInputStream(new FileInputStream(fd(0))));
        System.setOut(printStream(fd(1), System.getProperty("sun.stdout.encoding")));
        System.setErr(printStream(fd(2), System.getProperty("sun.stderr.encoding")));
    }

    private static PrintStream printStream(FileDescriptor fd, String encoding) {
        Charset cs = encoding != null && Charset.isSupported(encoding) ? Charset.forName(encoding) : Charset.defaultCharset();
        return new PrintStream(new BufferedOutputStream(new FileOutputStream(fd), 128), true, cs);
    }

    /** The descriptor opened for the client's fd {@code n}. */
    public FileDescriptor fd(int n) {
        return fds.get(n);
    }

    /** The path that leads to the client's fd {@code n} ({@code /proc/PID/fd/N}), to stat or readlink it. */
    public Path path(int n) {
        return paths.get(n);
    }

    /**
     * Where the client's fd {@code n} should end: this process's offset on it when it is
     * a regular file, else -1 (leave it alone).
     */
    public long finalOffset(int n) {
        if (specs.get(n).kind() != Kind.REG) {
            return -1;
        }
        try {
            // The opener's channel: the offset is the open file description's, whoever wrote through it.
            return channelOf(opened.get(n)).position();
        } catch (IOException e) {
            return -1;   // closed already (stdin closed to unblock a cancelled read)
        }
    }

    private static FileChannel channelOf(Closeable opener) {
        return opener instanceof FileInputStream in ? in.getChannel()
                : opener instanceof FileOutputStream out ? out.getChannel() : ((RandomAccessFile) opener).getChannel();
    }

    @Override
    public void close() {
        closeAll(opened);
    }

    private static void closeAll(List<Closeable> opened) {
        for (Closeable c : opened) {
            try {
                c.close();
            } catch (IOException e) {
                // closing a stream we no longer use
            }
        }
    }
}
