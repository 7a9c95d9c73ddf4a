package io.rdmaflux.codec;

import io.rdmaflux.buffer.Chunk;
import java.nio.ByteBuffer;
import java.util.List;
import org.reactivestreams.Publisher;
import org.reactivestreams.tck.PublisherVerification;
import org.reactivestreams.tck.TestEnvironment;
import org.testng.annotations.Factory;
import reactor.core.publisher.Flux;

/**
 * The Reactive Streams TCK against the publishers this module exposes: the encoder and the
 * decoder of each built-in stage, as {@link CodecChain#encode} and {@link CodecChain#decode}
 * return them. Each input chunk is one block, so n inputs give n outputs (the AES encoder adds
 * its END record, so it is checked through the decoder, which consumes it).
 */
public class CodecPublisherTckTest extends PublisherVerification<Chunk> {

    static final int BLOCK = 100;

    private final String chain;
    private final boolean decode;

    @Factory
    public static Object[] cases() {
        return new Object[] {
            new CodecPublisherTckTest("zstd:1", false),
            new CodecPublisherTckTest("zstd:1", true),
            new CodecPublisherTckTest("aes-256-gcm:1", true),
            new CodecPublisherTckTest("zstd:1,aes-256-gcm:1", true),
        };
    }

    public CodecPublisherTckTest(String chain, boolean decode) {
        super(new TestEnvironment(1000, 300));
        this.chain = chain;
        this.decode = decode;
    }

    private static CodecContext ctx() {
        return CodecContext.of("k".getBytes(), Codecs.newSalt()).withBlockSize(BLOCK).withAllocator(ChunkAllocator.heap());
    }

    private static Flux<Chunk> blocks(long n) {
        return Flux.range(0, (int) n).map(i -> {
            ByteBuffer b = ByteBuffer.allocate(BLOCK);
            b.put(0, (byte) (int) i);
            return Chunk.wrap(b);
        });
    }

    @Override
    public Publisher<Chunk> createPublisher(long elements) {
        CodecChain c = CodecChain.parse(chain);
        CodecContext ctx = ctx();
        if (!decode) {
            return c.encode(blocks(elements), ctx);
        }
        List<Chunk> wire = c.encode(blocks(elements), ctx).map(x -> {
            ByteBuffer copy = ByteBuffer.allocate(x.remaining()).put(x.buffer().duplicate()).flip();
            x.release();
            return Chunk.wrap(copy);
        }).collectList().block();
        return c.decode(Flux.fromIterable(wire), ctx);
    }

    @Override
    public Publisher<Chunk> createFailedPublisher() {
        return CodecChain.parse(chain).decode(Flux.error(new IllegalStateException("source failed")), ctx());
    }

    @Override
    public long maxElementsFromPublisher() {
        return 256;
    }

    @Override
    public String toString() {
        return (decode ? "decode " : "encode ") + chain;
    }
}
