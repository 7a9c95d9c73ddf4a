package io.rdmaflux.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.luben.zstd.Zstd;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/**
 * A zstd record cannot make a receiver allocate more than the sender announced ("zstd bombs"):
 * a few kilobytes on the wire that claim, or decode to, tens of megabytes end the stream with a
 * CODEC error before the memory is taken.
 */
class ZstdBoundTest {

    /** 48 MiB of zeros, compressed to about 1.5 KiB. */
    static final int BOMB = 48 << 20;
    static final byte[] BOMB_FRAME = Zstd.compress(new byte[BOMB], 1);

    /** One record in the zstd stage's format, with whatever header values the attacker likes. */
    static byte[] record(byte type, byte[] payload, int original) {
        return ByteBuffer.allocate(ZstdStage.HEADER + payload.length).put(type).putInt(payload.length).putInt(original)
                .put(payload).array();
    }

    /** Heap buffers; remembers the largest one asked for. */
    static final class Watching implements ChunkAllocator {
        final AtomicInteger largest = new AtomicInteger();

        @Override
        public Chunk allocate(int size) {
            largest.accumulateAndGet(size, Math::max);
            return ChunkAllocator.heap().allocate(size);
        }

        @Override
        public int outstanding() {
            return 0;
        }
    }

    static void assertRefused(String chain, byte[] wire, CodecContext ctx, String message) {
        StepVerifier.create(CodecChain.parse(chain).decode(Flux.just(Chunk.wrap(ByteBuffer.wrap(wire))), ctx)
                        .doOnNext(Chunk::release))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOfSatisfying(RdmaFluxException.class,
                        p -> assertThat(p.code()).isEqualTo(ErrorCode.CODEC)).hasMessage(message))
                .verify(Duration.ofSeconds(30));
    }

    @Test
    void aRecordClaimingMoreThanTheAnnouncedBlockIsRefusedBeforeAllocating() {
        assertThat(BOMB_FRAME.length).isLessThan(4096);
        Watching alloc = new Watching();
        assertRefused("zstd:1;level=1;block=1048567", record(ZstdStage.ZSTD, BOMB_FRAME, BOMB),
                CodecContext.keyless().withAllocator(alloc),
                "zstd: corrupt or hostile compressed data: a record inflates past 1048567 bytes");
        assertThat(alloc.largest.get()).isZero();
    }

    @Test
    void aFrameThatInflatesPastWhatItsRecordClaimsFails() {
        Watching alloc = new Watching();
        assertRefused("zstd:1;level=1;block=1048567", record(ZstdStage.ZSTD, BOMB_FRAME, 4096),
                CodecContext.keyless().withAllocator(alloc),
                "zstd: corrupt or hostile compressed data: a record inflates past 4096 bytes");
        assertThat(alloc.largest.get()).isEqualTo(4096);
    }

    @Test
    void withoutAnAnnouncedBlockTheContextBounds() {
        CodecContext ctx = CodecContext.keyless();
        assertRefused("zstd:1", record(ZstdStage.ZSTD, BOMB_FRAME, BOMB), ctx,
                "zstd: corrupt or hostile compressed data: a record inflates past " + ctx.splitSize() + " bytes");
    }

    @Test
    void aRecordStoringMoreThanTheBlockIsRefusedBeforeItIsReassembled() {
        assertRefused("zstd:1;block=1000", record(ZstdStage.RAW, new byte[1001], 1001), CodecContext.keyless(),
                "zstd: corrupt stream (record length 1001)");
    }

    @Test
    void aSenderWithLargerBlocksAnnouncesThemAndTheReceiverFollows() {
        CodecChain sent = CodecChain.parse("zstd:1").forFrameSize(4 << 20);
        assertThat(sent.format()).isEqualTo("zstd:1;block=" + ((4 << 20) - ZstdStage.HEADER));
        byte[] data = TestData.compressible(new Random(5), 9 << 20);
        // The sized chain cuts its own 4 MiB blocks, whatever the (default, 1 MiB) context says.
        byte[] wire = TestData.collect(sent.encode(new TestData.Tracker().source(data, 5 << 20), CodecContext.keyless()));
        assertThat(ByteBuffer.wrap(wire).getInt(5)).isEqualTo((4 << 20) - ZstdStage.HEADER);
        // The receiver takes the bound from the chain string, with its own default context.
        assertThat(TestData.collect(CodecChain.parse(sent.format()).decode(TestData.recut(wire, new Random(6), 1 << 20,
                new TestData.Tracker()), CodecContext.keyless()))).isEqualTo(data);
        // Strip the announcement, and the same stream is held to the receiver's own block size.
        assertRefused("zstd:1", wire, CodecContext.keyless(), "zstd: corrupt or hostile compressed data: a record inflates past "
                + CodecContext.keyless().splitSize() + " bytes");
    }
}
