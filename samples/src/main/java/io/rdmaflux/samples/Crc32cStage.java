package io.rdmaflux.samples;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.codec.ChunkAllocator;
import io.rdmaflux.codec.ChunkFlux;
import io.rdmaflux.codec.CodecContext;
import io.rdmaflux.codec.CodecSpec;
import io.rdmaflux.codec.CodecStage;
import io.rdmaflux.codec.RecordAssembler;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.nio.ByteBuffer;
import java.util.function.Function;
import java.util.zip.CRC32C;
import reactor.core.publisher.Flux;

/**
 * A custom codec stage, {@code crc32c:1}: each block travels with its CRC32C, checked on
 * receive. It plugs in without touching the project: this class is listed in
 * {@code META-INF/services/io.rdmaflux.codec.CodecStage} of this jar, so with the jar on the
 * class path of both sides a sender can use the chain {@code crc32c:1,zstd:1} and the receiver
 * finds the stage by name.
 *
 * <p>Record format: u32 payload length, payload, u32 CRC32C of the payload. Blocks larger than
 * {@link CodecContext#blockSize()} are split first (without copying).
 *
 * <p>It follows the {@link CodecStage} contract the simple way: a sequential {@code map} that
 * releases its input in a {@code finally}, {@link RecordAssembler} to undo the channel's
 * re-cutting, and the discard hook for chunks dropped on cancel.
 */
public final class Crc32cStage implements CodecStage {

    public static final String NAME = "crc32c";
    private static final int HEADER = 4;
    private static final int TRAILER = 4;

    private static final RecordAssembler.Header RECORD = new RecordAssembler.Header() {
        @Override
        public int length() {
            return HEADER;
        }

        @Override
        public int recordLength(ByteBuffer b, int offset) {
            int n = b.getInt(offset);
            if (n < 0 || n > RecordAssembler.MAX_RECORD - HEADER - TRAILER) {
                throw new RdmaFluxException(ErrorCode.CODEC, "crc32c: corrupt stream (record length " + n + ")");
            }
            return HEADER + n + TRAILER;
        }
    };

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int version() {
        return 1;
    }

    @Override
    public int recordOverhead() {
        return HEADER + TRAILER;
    }

    @Override
    public Function<Flux<Chunk>, Flux<Chunk>> encoder(CodecSpec spec, CodecContext ctx) {
        ChunkAllocator alloc = ctx.allocator();
        return in -> ChunkFlux.split(in, ctx.splitSize())
                .map(c -> seal(c, alloc))
                .doOnDiscard(Chunk.class, Chunk::releaseQuietly);
    }

    @Override
    public Function<Flux<Chunk>, Flux<Chunk>> decoder(CodecSpec spec, CodecContext ctx) {
        return in -> RecordAssembler.records(in, RECORD, NAME)
                .map(Crc32cStage::check)
                .doOnDiscard(Chunk.class, Chunk::releaseQuietly);
    }

    private static Chunk seal(Chunk in, ChunkAllocator alloc) {
        try {
            ByteBuffer src = in.buffer().duplicate();
            int n = src.remaining();
            CRC32C crc = new CRC32C();
            crc.update(src.duplicate());
            Chunk out = alloc.allocate(HEADER + n + TRAILER);
            ByteBuffer o = out.buffer();
            o.putInt(n).put(src).putInt((int) crc.getValue()).flip();
            return out;
        } finally {
            in.release();
        }
    }

    private static Chunk check(Chunk record) {
        ByteBuffer r = record.buffer();
        int p = r.position();
        int n = r.getInt(p);
        ByteBuffer payload = r.duplicate();
        payload.position(p + HEADER).limit(p + HEADER + n);
        CRC32C crc = new CRC32C();
        crc.update(payload.duplicate());
        if ((int) crc.getValue() != r.getInt(p + HEADER + n)) {
            record.release();
            throw new RdmaFluxException(ErrorCode.CODEC, "crc32c: checksum mismatch, the data was corrupted");
        }
        // Hand on a view of the payload; releasing it releases the record.
        return Chunk.of(payload.slice(), record::release);
    }
}
