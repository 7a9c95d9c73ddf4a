package io.rdmaflux.connector;

import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.RandomAccessFile;
import java.nio.file.Path;

/**
 * A child process for {@link StandardStreamsTest}: makes {@code args[0]} its standard input and
 * {@code args[1]} (written from offset {@code args[2]}, not truncated) its standard output through
 * {@link StandardStreams}, as a standby JVM does with its client's streams, then copies standard
 * input to standard output through the tools' source and sink. Prints on stderr whether standard
 * input is a pipe ({@link PipeEnd#stdinIsPipe}) as the holder describes it.
 */
public final class HolderCopy {

    private HolderCopy() {
    }

    public static void main(String[] args) throws Exception {
        FileInputStream in = new FileInputStream(args[0]);
        RandomAccessFile out = new RandomAccessFile(args[1], "rw");
        out.seek(Long.parseLong(args[2]));
        StandardStreams.use(in.getFD(), out.getFD(), java.io.FileDescriptor.err,
                Path.of(args[0]), Path.of(args[1]), Path.of("/proc/self/fd/2"));
        System.err.println("stdin is a pipe: " + PipeEnd.stdinIsPipe());
        Source source = StdinSource.create();
        SinkResult r = StdoutSink.create().write(source.open(), source.metadata()).block();
        System.err.println("copied " + r.bytes());
        System.exit(0);
    }
}
