package io.rdmaflux.codec;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;
import reactor.core.publisher.Flux;

/**
 * An ordered list of codec stages, as carried by the stream metadata attribute
 * {@code codecs}: comma-separated {@link CodecSpec}s applied in order on the sending side,
 * for example {@code zstd:1;level=1,aes-256-gcm:1}. The receiving side parses the same string
 * and applies the inverse stages in reverse order, so it needs no codec settings of its own.
 *
 * <p>Sender:
 * <pre>{@code
 * CodecChain chain = CodecChain.builder().zstd(1).aesGcm().build().forFrameSize(options.frameSize());
 * StreamMetadata meta = StreamMetadata.empty().with(StreamMetadata.CODECS, chain.format());
 * // chunks: any size; blocks of chain.blockSize() bytes travel as one frame each, without copies
 * sender.send(meta, session -> chain.encode(chunks, CodecContext.forSession(session, key)));
 * }</pre>
 * Receiver:
 * <pre>{@code
 * CodecChain chain = CodecChain.parse(stream.metadata().codecs());   // CODEC error if unknown
 * Flux<Chunk> plain = chain.decode(stream.receiveChunks(), CodecContext.forSession(stream.session(), key));
 * }</pre>
 */
public final class CodecChain {

    private static final CodecChain EMPTY = new CodecChain(List.of(), List.of(), 0);

    private final List<CodecSpec> specs;
    private final List<CodecStage> stages;
    /** The frame size the chain is sized for, or 0: its encoder then takes the context's block size. */
    private final int frameSize;

    private CodecChain(List<CodecSpec> specs, List<CodecStage> stages, int frameSize) {
        this.specs = Collections.unmodifiableList(new ArrayList<>(specs));
        this.stages = Collections.unmodifiableList(new ArrayList<>(stages));
        this.frameSize = frameSize;
    }

    /** The chain that does nothing. */
    public static CodecChain empty() {
        return EMPTY;
    }

    /**
     * Parses a chain string against the default registry. Null or blank is the empty chain.
     * Throws a CODEC {@link RdmaFluxException} for malformed text, an unknown codec name or an
     * unsupported version, so a receiver can refuse the stream before any data moves.
     */
    public static CodecChain parse(String text) {
        return parse(text, CodecRegistry.defaultRegistry());
    }

    /** Parses a chain string against {@code registry}. */
    public static CodecChain parse(String text, CodecRegistry registry) {
        if (text == null || text.isBlank()) {
            return EMPTY;
        }
        List<CodecSpec> specs = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            if (part.isBlank()) {
                throw new RdmaFluxException(ErrorCode.CODEC, "malformed codec chain '" + text + "' (empty element)");
            }
            specs.add(CodecSpec.parse(part));
        }
        return of(specs, registry);
    }

    /** A chain of these specs, resolved against {@code registry}. */
    public static CodecChain of(List<CodecSpec> specs, CodecRegistry registry) {
        if (specs.size() > 16) {
            throw new RdmaFluxException(ErrorCode.CODEC, "codec chain too long (" + specs.size() + " stages)");
        }
        List<CodecStage> stages = new ArrayList<>();
        for (CodecSpec s : specs) {
            stages.add(registry.resolve(s));
        }
        return new CodecChain(specs, stages, 0);
    }

    /** A chain builder against the default registry. */
    public static Builder builder() {
        return new Builder(CodecRegistry.defaultRegistry());
    }

    /** The chain string, as put in {@code StreamMetadata.CODECS}; empty for the empty chain. */
    public String format() {
        return specs.stream().map(CodecSpec::format).collect(Collectors.joining(","));
    }

    public List<CodecSpec> specs() {
        return specs;
    }

    public boolean isEmpty() {
        return specs.isEmpty();
    }

    /** Whether a stage of this chain needs the shared key (and a salt) in its context. */
    public boolean requiresKey() {
        return stages.stream().anyMatch(CodecStage::requiresKey);
    }

    /** Whether the chain holds a stage of this name. */
    public boolean contains(String name) {
        return specs.stream().anyMatch(s -> s.name().equals(name));
    }

    /**
     * The largest plaintext block whose encoded record still fits one channel frame of
     * {@code frameSize} bytes.
     */
    public int blockSizeFor(int frameSize) {
        int overhead = stages.stream().mapToInt(CodecStage::recordOverhead).sum();
        return Math.max(1, frameSize - overhead);
    }

    /**
     * This chain sized for a channel of {@code frameSize}-byte frames, as a sender uses it: its
     * encoder cuts blocks of {@link #blockSize()} bytes, whatever the context says, so that each
     * record travels as one frame; and its chain string announces what each stage then writes at
     * most (zstd: {@code block=N}), which the receiver's decoders hold the stream to.
     */
    public CodecChain forFrameSize(int frameSize) {
        if (frameSize < 1 || frameSize > RecordAssembler.MAX_RECORD) {
            throw new IllegalArgumentException("frame size must be between 1 and " + RecordAssembler.MAX_RECORD
                    + ", was " + frameSize);
        }
        List<CodecSpec> sized = new ArrayList<>();
        int input = blockSizeFor(frameSize);
        for (int i = 0; i < stages.size(); i++) {
            sized.add(stages.get(i).sized(specs.get(i), input));
            input += stages.get(i).recordOverhead();
        }
        return new CodecChain(sized, stages, frameSize);
    }

    /**
     * The block size this chain's encoder cuts, the size in which a source should best read
     * (larger chunks are split without copying; smaller ones become smaller records): for a chain
     * {@linkplain #forFrameSize sized} for a frame size, that frame size less the records'
     * overhead; otherwise the context decides, and this is the default context's,
     * {@link CodecContext#DEFAULT_BLOCK_SIZE}.
     */
    public int blockSize() {
        return frameSize > 0 ? blockSizeFor(frameSize) : CodecContext.DEFAULT_BLOCK_SIZE;
    }

    /**
     * Applies the stages in order. The returned Flux follows the {@link CodecStage} contract: it
     * takes ownership of the input chunks and emits new leases.
     */
    public Flux<Chunk> encode(Flux<Chunk> in, CodecContext context) {
        if (stages.isEmpty()) {
            return in;
        }
        CodecContext ctx = frameSize > 0 ? context.withBlockSize(blockSize()) : context;
        // Blocks of the block size go into the first stage; later stages take the (slightly
        // larger) records of earlier ones whole, see CodecContext.splitSize().
        Flux<Chunk> f = ChunkFlux.split(in, ctx.blockSize());
        for (int i = 0; i < stages.size(); i++) {
            f = stages.get(i).encoder(specs.get(i), ctx).apply(f);
        }
        return f.doOnDiscard(Chunk.class, Chunk::releaseQuietly);
    }

    /** Applies the inverse stages in reverse order. */
    public Flux<Chunk> decode(Flux<Chunk> in, CodecContext context) {
        Flux<Chunk> f = in;
        for (int i = stages.size() - 1; i >= 0; i--) {
            f = stages.get(i).decoder(specs.get(i), context).apply(f);
        }
        return f.doOnDiscard(Chunk.class, Chunk::releaseQuietly);
    }

    /** {@link #encode} as an operator for {@code Flux.transform}. */
    public Function<Flux<Chunk>, Flux<Chunk>> encoder(CodecContext context) {
        return in -> encode(in, context);
    }

    /** {@link #decode} as an operator for {@code Flux.transform}. */
    public Function<Flux<Chunk>, Flux<Chunk>> decoder(CodecContext context) {
        return in -> decode(in, context);
    }

    @Override
    public String toString() {
        return format().isEmpty() ? "(no codecs)" : format();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CodecChain c && c.specs.equals(specs);
    }

    @Override
    public int hashCode() {
        return specs.hashCode();
    }

    /** Builds a chain stage by stage. */
    public static final class Builder {
        private final CodecRegistry registry;
        private final List<CodecSpec> specs = new ArrayList<>();

        private Builder(CodecRegistry registry) {
            this.registry = registry;
        }

        /** Parallel zstd at this level. */
        public Builder zstd(int level) {
            return add(ZstdStage.spec(level));
        }

        /** AES-256-GCM with a key derived from the context's key and salt. */
        public Builder aesGcm() {
            return add(AesGcmStage.spec());
        }

        /** Any stage. */
        public Builder add(CodecSpec spec) {
            specs.add(spec);
            return this;
        }

        public CodecChain build() {
            return of(specs, registry);
        }
    }
}
