package io.rdmaflux.connector;

import io.rdmaflux.buffer.Chunk;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * Run as a separate process by {@link OpenWritesExitTest}: starts a file sink's write of a
 * stream that never ends into {@code args[1]}, waits until its first bytes are on disk, and then
 * ends the process the way {@code args[0]} says: {@code exit} (System.exit mid-write),
 * {@code cancel-exit} (cancel, then System.exit at once), {@code halt} ({@link Sink#abandonAll},
 * then Runtime.halt, as a tool ending by a signal's default action does).
 */
public final class OpenWriteExit {

    private OpenWriteExit() {
    }

    public static void main(String[] args) throws Exception {
        String how = args[0];
        Path target = Path.of(args[1]);
        boolean append = args.length > 2 && args[2].equals("append");
        long before = Files.exists(target) ? Files.size(target) : 0;
        Sink sink = append ? FileSink.appending(target, SinkOptions.defaults()) : FileSink.of(target);
        ByteBuffer block = ByteBuffer.allocateDirect(64 * 1024);
        Disposable write = sink.write(Flux.concat(Flux.just(Chunk.wrap(block)), Flux.never())).subscribe();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (written(target, append) <= before) {
            if (System.nanoTime() > deadline) {
                System.err.println("the write never started");
                Runtime.getRuntime().halt(2);
            }
            Thread.sleep(5);
        }
        switch (how) {
            case "exit" -> System.exit(3);
            case "cancel-exit" -> {
                write.dispose();
                System.exit(3);
            }
            case "halt" -> {
                boolean all = Sink.abandonAll(Duration.ofSeconds(2));
                Runtime.getRuntime().halt(all ? 3 : 4);
            }
            default -> throw new IllegalArgumentException(how);
        }
    }

    /** The bytes written so far: the target's size when appending, else its partial file's. */
    private static long written(Path target, boolean append) throws IOException {
        if (append) {
            return Files.size(target);
        }
        try (Stream<Path> files = Files.list(target.getParent())) {
            return files.filter(p -> p.getFileName().toString().endsWith(".part"))
                    .mapToLong(p -> p.toFile().length()).sum();
        }
    }
}
