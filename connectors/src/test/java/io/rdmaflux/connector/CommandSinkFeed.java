package io.rdmaflux.connector;

import io.rdmaflux.buffer.Chunk;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import reactor.core.publisher.Flux;

/**
 * Run as a separate process by {@link CommandSinkCrashTest}: feeds an endless stream to the
 * sink command {@code cat > part; touch done} in {@code args[0]} until it is killed.
 */
public final class CommandSinkFeed {

    private CommandSinkFeed() {
    }

    public static void main(String[] args) {
        ByteBuffer block = ByteBuffer.allocateDirect(64 * 1024);
        CommandSink.shell("cat > part; touch done")
                .withOptions(CommandOptions.defaults().withDirectory(Path.of(args[0])))
                .write(Flux.generate(s -> s.next(Chunk.wrap(block.duplicate()))))
                .block();
    }
}
