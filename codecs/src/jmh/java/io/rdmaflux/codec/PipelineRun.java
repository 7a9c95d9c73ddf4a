package io.rdmaflux.codec;

import io.rdmaflux.buffer.Chunk;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * The whole codec path on one machine, for the side-by-side with the shell pipeline
 * {@code zstd -1 -T2 | openssl enc -aes-256-ctr | openssl enc -d | zstd -d}: a file read in
 * blocks, compressed and sealed (the sender's chain), then opened and decompressed (the
 * receiver's), all in one process on the same cores. Prints plain MB/s of wall time and the
 * ratio for each run; the first run includes the JIT's warm-up.
 *
 * <pre>
 *   java -cp codecs/target/rdma-flux-codecs-benchmarks.jar io.rdmaflux.codec.PipelineRun FILE [CHAIN] [RUNS]
 * </pre>
 */
public final class PipelineRun {

    private PipelineRun() {
    }

    public static void main(String[] args) throws Exception {
        Path file = Paths.get(args[0]);
        CodecChain chain = CodecChain.parse(args.length > 1 ? args[1] : "zstd:1;level=1,aes-256-gcm:1")
                .forFrameSize(1 << 20);
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        int block = chain.blockSize();
        for (int r = 0; r < runs; r++) {
            CodecContext ctx = CodecContext.of("key".getBytes(), Codecs.newSalt());
            AtomicLong plain = new AtomicLong();
            AtomicLong wire = new AtomicLong();
            AtomicLong out = new AtomicLong();
            long t0 = System.nanoTime();
            Flux<Chunk> sent = chain.encode(read(file, block).doOnNext(c -> plain.addAndGet(c.remaining())), ctx)
                    .doOnNext(c -> wire.addAndGet(c.remaining()));
            chain.decode(sent, ctx).doOnNext(c -> {
                out.addAndGet(c.remaining());
                c.release();
            }).blockLast();
            double s = (System.nanoTime() - t0) / 1e9;
            if (out.get() != plain.get()) {
                throw new IllegalStateException("lost bytes: " + plain + " in, " + out + " out");
            }
            System.out.printf("run %d: %s %,d bytes in %.2f s = %.0f MB/s, ratio %.3f%n", r + 1, chain.format(),
                    plain.get(), s, plain.get() / 1e6 / s, (double) wire.get() / plain.get());
        }
        System.out.println(AesGcmStage.provider());
    }

    /** The file in direct blocks of {@code block} bytes, read on a bounded elastic thread. */
    static Flux<Chunk> read(Path file, int block) {
        ChunkAllocator alloc = ChunkAllocator.pooled();
        return Flux.using(() -> FileChannel.open(file, StandardOpenOption.READ),
                ch -> Flux.<Chunk>generate(sink -> {
                    Chunk c = alloc.allocate(block);
                    ByteBuffer b = c.buffer();
                    try {
                        while (b.hasRemaining() && ch.read(b) >= 0) {
                            // fill
                        }
                    } catch (IOException e) {
                        c.release();
                        sink.error(e);
                        return;
                    }
                    b.flip();
                    if (b.hasRemaining()) {
                        sink.next(c);
                    } else {
                        c.release();
                        sink.complete();
                    }
                }).subscribeOn(Schedulers.boundedElastic(), false),
                ch -> {
                    try {
                        ch.close();
                    } catch (IOException e) {
                        // ignore
                    }
                });
    }
}
