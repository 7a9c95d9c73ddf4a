package io.rdmaflux.samples;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.Sink;
import io.rdmaflux.connector.SinkResult;
import io.rdmaflux.connector.StdoutSink;
import io.rdmaflux.protocol.StreamMetadata;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A sink that keeps nothing but the stream's SHA-256: at the end it writes one line as
 * {@code sha256sum} does ({@code HEX  NAME}, the name from the stream metadata or "-") to a
 * file or to standard output. Its {@link SinkResult#location()} is {@code sha256:HEX}.
 *
 * <p>It follows the {@link Sink} contract the simple way: hashing moves off the delivering
 * thread (a channel's event loop) with a small prefetch, each chunk is released once hashed,
 * and chunks dropped on cancel go to the discard hook. Nothing is written unless the stream
 * completed.
 */
public final class Sha256Sink implements Sink {

    private final Path output;

    private Sha256Sink(Path output) {
        this.output = output;
    }

    /** Prints the digest line on standard output. */
    public static Sha256Sink toStdout() {
        return new Sha256Sink(null);
    }

    /** Writes the digest line to {@code file}. */
    public static Sha256Sink toFile(Path file) {
        return new Sha256Sink(file);
    }

    @Override
    public Mono<SinkResult> write(Publisher<Chunk> data, StreamMetadata metadata) {
        return Mono.defer(() -> {
            MessageDigest digest = sha256();
            AtomicLong bytes = new AtomicLong();
            return Flux.from(data)
                    .publishOn(Schedulers.boundedElastic(), 4)
                    .doOnNext(c -> {
                        try {
                            bytes.addAndGet(c.remaining());
                            digest.update(c.buffer());
                        } finally {
                            c.release();
                        }
                    })
                    .doOnDiscard(Chunk.class, Chunk::releaseQuietly)
                    .then(Mono.defer(() -> {
                        String hex = HexFormat.of().formatHex(digest.digest());
                        String name = metadata.get(StreamMetadata.NAME);
                        String line = hex + "  " + (name == null ? "-" : name) + System.lineSeparator();
                        SinkResult result = new SinkResult(bytes.get(), "sha256:" + hex);
                        if (output == null) {
                            // Through the stdout sink, which writes file descriptor 1: the tools
                            // point System.out at stderr, as standard output carries data.
                            byte[] text = line.getBytes(StandardCharsets.UTF_8);
                            return StdoutSink.create().write(Flux.just(Chunk.wrap(ByteBuffer.wrap(text))))
                                    .thenReturn(result);
                        }
                        return Mono.fromCallable(() -> {
                            Files.writeString(output, line, StandardCharsets.UTF_8);
                            return result;
                        });
                    }));
        });
    }

    @Override
    public String describe() {
        return "sha256 to " + (output == null ? "standard output" : output.toString());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
