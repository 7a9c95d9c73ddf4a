package io.rdmaflux.cli;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.SinkOptions;
import io.rdmaflux.connector.WriteTarget;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * Run as a separate process by {@link SinkCleanUpExitTest}: a sink whose commit is slow (a
 * large file's sync on a slow disk, {@value #COMMIT_MILLIS} ms) is cancelled in the middle of
 * its commit, as a receiving session cancels its handler when the stream fails after its
 * verified END, and the process then ends the way every tool ends ({@link Signals#exit}).
 * Its output is {@code out.part} in {@code args[0]}, renamed to {@code out} by the commit and
 * removed by an abort.
 */
public final class SlowCommitExit {

    /** Longer than a JVM exit's own hook waits for a write (2 s). */
    static final long COMMIT_MILLIS = 4_000;

    private SlowCommitExit() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        Path part = dir.resolve("out.part");
        Path out = dir.resolve("out");
        CountDownLatch committing = new CountDownLatch(1);
        WriteTarget slow = new WriteTarget() {
            private FileChannel channel;

            @Override
            public void open() throws IOException {
                channel = FileChannel.open(part, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
            }

            @Override
            public void write(ByteBuffer src) throws IOException {
                while (src.hasRemaining()) {
                    channel.write(src);
                }
            }

            @Override
            public String commit() throws IOException {
                committing.countDown();
                try {
                    Thread.sleep(COMMIT_MILLIS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while syncing");
                }
                channel.close();
                Files.move(part, out, StandardCopyOption.ATOMIC_MOVE);
                return out.toString();
            }

            @Override
            public String abort() {
                try {
                    if (channel != null) {
                        channel.close();
                    }
                    Files.deleteIfExists(part);
                    return "partial file removed";
                } catch (IOException e) {
                    return "partial file not removed: " + e;
                }
            }

            @Override
            public String describe() {
                return out.toString();
            }
        };
        Disposable write = WriteTarget.run(slow, Flux.just(Chunk.wrap(ByteBuffer.allocate(4096))),
                SinkOptions.defaults()).subscribe(r -> { }, e -> { });
        if (!committing.await(30, TimeUnit.SECONDS)) {
            System.err.println("the commit never started");
            Runtime.getRuntime().halt(2);
        }
        // The stream fails after its verified END: the session cancels the committing sink.
        write.dispose();
        Signals.exit(74);
    }
}
