package io.rdmaflux.codec;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.nio.ByteBuffer;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Parallel zstd ({@code zstd:1;level=N}). Each block (at most {@link CodecContext#blockSize()}
 * bytes) is compressed independently on one of {@link CodecContext#parallelism()} workers, so
 * compression and decompression both scale with cores, and output keeps input order.
 *
 * <p>Record format, version 1 (big-endian):
 * <pre>
 *   u8  type      0 = stored raw, 1 = one zstd frame
 *   u32 stored    bytes of payload that follow
 *   u32 original  bytes the payload decodes to
 *   ... payload
 * </pre>
 * A block that zstd does not make smaller is stored raw, so incompressible data grows by the
 * 9-byte header per block (under 0.001 % at the default block size).
 *
 * <p>The level is a parameter of the sender only ({@code level}, from {@value #MIN_LEVEL} to
 * {@value #MAX_LEVEL}, negative levels being zstd's fast modes); it travels in the chain string
 * for information. The default, {@value #DEFAULT_LEVEL}, was chosen by measurement: see
 * docs/codecs.md.
 *
 * <p>The parameter {@code block} (the sender's promise: no record decodes to more bytes) bounds
 * what the decoder allocates for a record. A chain sized for a frame size announces it
 * ({@link CodecChain#forFrameSize}); without it the decoder holds records to its context's
 * {@link CodecContext#splitSize()}. A record that claims or decodes to more fails with a CODEC
 * error before it can exhaust memory (a "zstd bomb").
 */
public final class ZstdStage implements CodecStage {

    public static final String NAME = "zstd";
    public static final int VERSION = 1;
    public static final int DEFAULT_LEVEL = 1;
    public static final int MIN_LEVEL = -7;
    public static final int MAX_LEVEL = 22;
    /** Header bytes per record. */
    public static final int HEADER = 9;

    static final byte RAW = 0;
    static final byte ZSTD = 1;
    /** Blocks smaller than this are stored raw without trying. */
    private static final int MIN_COMPRESS = 64;
    /** Parameter: the largest block the sender compresses into one record. */
    static final String BLOCK = "block";

    /**
     * zstd-jni's native library, loaded once per process on a thread that may block: loading
     * extracts it to a temporary file, which must happen neither on an event loop nor on a worker.
     */
    private static final Mono<Void> NATIVE = Mono.fromRunnable(ZstdStage::loadNative)
            .subscribeOn(Schedulers.boundedElastic()).then().cache();

    private static final ThreadLocal<ZstdCompressCtx> COMPRESSORS = ThreadLocal.withInitial(ZstdCompressCtx::new);
    private static final ThreadLocal<ZstdDecompressCtx> DECOMPRESSORS = ThreadLocal.withInitial(ZstdDecompressCtx::new);

    /** The spec for a level. */
    public static CodecSpec spec(int level) {
        CodecSpec s = CodecSpec.of(NAME, VERSION).with("level", Integer.toString(level));
        new ZstdStage().validate(s);
        return s;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int version() {
        return VERSION;
    }

    @Override
    public int recordOverhead() {
        return HEADER;
    }

    @Override
    public void validate(CodecSpec spec) {
        level(spec);
        block(spec, 1);
    }

    /** Announces the largest block this stage compresses, so that the decoder can hold records to it. */
    @Override
    public CodecSpec sized(CodecSpec spec, int largestInput) {
        return spec.with(BLOCK, Integer.toString(largestInput));
    }

    /** The spec's {@code block}, or {@code fallback} when it has none. */
    static int block(CodecSpec spec, int fallback) {
        String v = spec.param(BLOCK, null);
        if (v == null) {
            return fallback;
        }
        int block;
        try {
            block = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new RdmaFluxException(ErrorCode.CODEC, "zstd: invalid block size '" + v + "'");
        }
        if (block < 1 || block > RecordAssembler.MAX_RECORD - HEADER) {
            throw new RdmaFluxException(ErrorCode.CODEC, "zstd: block size " + block + " out of range (1 to "
                    + (RecordAssembler.MAX_RECORD - HEADER) + ")");
        }
        return block;
    }

    static int level(CodecSpec spec) {
        String v = spec.param("level", Integer.toString(DEFAULT_LEVEL));
        int level;
        try {
            level = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new RdmaFluxException(ErrorCode.CODEC, "zstd: invalid level '" + v + "'");
        }
        if (level < MIN_LEVEL || level > MAX_LEVEL || level == 0) {
            throw new RdmaFluxException(ErrorCode.CODEC, "zstd: level " + level + " out of range ("
                    + MIN_LEVEL + " to -1, or 1 to " + MAX_LEVEL + ")");
        }
        return level;
    }

    /** Loads zstd-jni's native library on the calling thread (blocking, the first time). */
    static void loadNative() {
        com.github.luben.zstd.util.Native.load();
    }

    /** One line for {@code rdflux doctor} and {@code -v}. */
    public static String describe() {
        loadNative();
        Package p = ZstdCompressCtx.class.getPackage();
        String v = p != null && p.getImplementationVersion() != null ? " " + p.getImplementationVersion() : "";
        return "zstd: zstd-jni" + v + ", default level " + DEFAULT_LEVEL + ", " + CodecWorkers.defaultParallelism()
                + " workers";
    }

    @Override
    public Function<Flux<Chunk>, Flux<Chunk>> encoder(CodecSpec spec, CodecContext ctx) {
        int level = level(spec);
        // Keeps the promise of the spec's block size, whatever the context says.
        int split = Math.min(ctx.splitSize(), block(spec, ctx.splitSize()));
        ChunkAllocator alloc = ctx.allocator();
        return in -> NATIVE.thenMany(ChunkFlux.mapOrdered(ChunkFlux.split(in, split),
                c -> compress(c, level, alloc), ctx.scheduler(), ctx.parallelism()));
    }

    @Override
    public Function<Flux<Chunk>, Flux<Chunk>> decoder(CodecSpec spec, CodecContext ctx) {
        int limit = block(spec, ctx.splitSize());
        ChunkAllocator alloc = ctx.allocator();
        // A record never stores more than its block: raw, or compressed to fewer bytes.
        RecordAssembler.Header format = RecordAssembler.Header.withLengthAt(HEADER, 1, 0, limit, NAME);
        return in -> NATIVE.thenMany(ChunkFlux.mapOrdered(RecordAssembler.records(in, format, "zstd"),
                r -> decompress(r, limit, alloc), ctx.scheduler(), ctx.parallelism()));
    }

    /** Compresses one block into one record; releases the input. */
    static Chunk compress(Chunk in, int level, ChunkAllocator alloc) {
        Chunk out = null;
        try {
            ByteBuffer src = in.buffer();
            int n = src.remaining();
            out = alloc.allocate(HEADER + n);
            ByteBuffer dst = out.buffer();
            int stored = -1;
            if (n >= MIN_COMPRESS) {
                ByteBuffer dsrc = direct(src);
                int off = dsrc == src ? src.position() : 0;
                ByteBuffer target = dst.isDirect() ? dst : DirectScratch.get(1, HEADER + n);
                try {
                    ZstdCompressCtx z = COMPRESSORS.get();
                    z.setLevel(level);
                    // Room for n - 1 bytes only: output that would not be smaller fails fast and is stored raw.
                    stored = z.compressDirectByteBuffer(target, HEADER, n - 1, dsrc, off, n);
                } catch (ZstdException e) {
                    stored = -1;
                }
                if (target != dst && stored > 0 && stored < n) {
                    ByteBuffer t = target.duplicate();
                    t.position(HEADER).limit(HEADER + stored);
                    dst.position(HEADER);
                    dst.put(t);
                }
            }
            if (stored > 0 && stored < n) {
                dst.put(0, ZSTD);
            } else {
                stored = n;
                dst.put(0, RAW);
                dst.position(HEADER);
                dst.put(src.duplicate());
            }
            dst.putInt(1, stored).putInt(5, n);
            dst.position(0).limit(HEADER + stored);
            Chunk result = out;
            out = null;
            return result;
        } finally {
            in.releaseQuietly();
            if (out != null) {
                out.releaseQuietly();
            }
        }
    }

    /**
     * Decodes one record into its block of at most {@code limit} bytes; releases the input.
     * Returns null for an empty block.
     */
    static Chunk decompress(Chunk record, int limit, ChunkAllocator alloc) {
        Chunk out = null;
        try {
            ByteBuffer r = record.buffer();
            int p = r.position();
            byte type = r.get(p);
            int stored = r.getInt(p + 1);
            int original = r.getInt(p + 5);
            if (stored != r.remaining() - HEADER || original < 0
                    || (type == RAW && original != stored) || (type != RAW && type != ZSTD)) {
                throw new RdmaFluxException(ErrorCode.CODEC, "zstd: corrupt stream (bad record header)");
            }
            if (original > limit) {
                throw inflates(limit);
            }
            if (original == 0) {
                return null;
            }
            out = alloc.allocate(original);
            ByteBuffer dst = out.buffer();
            if (type == RAW) {
                ByteBuffer payload = r.duplicate();
                payload.position(p + HEADER);
                dst.put(payload).flip();
            } else {
                ByteBuffer payload = r.duplicate();
                payload.position(p + HEADER);
                ByteBuffer src = direct(payload);
                int off = src == payload ? p + HEADER : 0;
                int n;
                try {
                    if (dst.isDirect()) {
                        n = DECOMPRESSORS.get().decompressDirectByteBuffer(dst, 0, original, src, off, stored);
                    } else {
                        byte[] tmp = new byte[original];
                        n = DECOMPRESSORS.get().decompressDirectByteBufferToByteArray(tmp, 0, original, src, off, stored);
                        dst.put(tmp, 0, Math.max(0, n));
                    }
                } catch (ZstdException e) {
                    if (e.getErrorCode() == Zstd.errDstSizeTooSmall()) {
                        throw inflates(original);
                    }
                    throw new RdmaFluxException(ErrorCode.CODEC, "zstd: corrupt compressed block (" + e.getMessage() + ")");
                }
                if (n != original) {
                    throw new RdmaFluxException(ErrorCode.CODEC, "zstd: corrupt compressed block (decoded "
                            + n + " bytes, expected " + original + ")");
                }
                dst.position(0).limit(original);
            }
            Chunk result = out;
            out = null;
            return result;
        } finally {
            record.releaseQuietly();
            if (out != null) {
                out.releaseQuietly();
            }
        }
    }

    private static RdmaFluxException inflates(int limit) {
        return new RdmaFluxException(ErrorCode.CODEC,
                "zstd: corrupt or hostile compressed data: a record inflates past " + limit + " bytes");
    }

    /** The bytes as a direct buffer: itself, or a copy in this thread's scratch buffer. */
    private static ByteBuffer direct(ByteBuffer b) {
        return DirectScratch.direct(b, 0);
    }
}
