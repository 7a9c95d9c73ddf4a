package io.rdmaflux.codec;

import io.rdmaflux.channel.Session;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import reactor.core.scheduler.Scheduler;

/**
 * What the stages of one stream share: the shared key and the session salt (for stages that
 * derive keys), the worker scheduler and parallelism for CPU-bound stages, the largest block a
 * stage encodes as one record, and the allocator for output buffers. Immutable; each
 * {@code withX} returns a copy.
 *
 * <p>On a channel, build it from the session on both sides:
 * {@code CodecContext.forSession(session, key)}; the salt then is the sender's and receiver's
 * fresh handshake nonces, so every connection gets its own derived keys.
 */
public final class CodecContext {

    /**
     * Default largest plaintext block per record: 1 MiB less 256 bytes, so that a record with the
     * built-in stages' headers and tag fits one default (1 MiB) channel frame.
     */
    public static final int DEFAULT_BLOCK_SIZE = (1 << 20) - 256;

    private final byte[] key;
    private final byte[] salt;
    private final Scheduler scheduler;
    private final int parallelism;
    private final int blockSize;
    private final ChunkAllocator allocator;

    private CodecContext(byte[] key, byte[] salt, Scheduler scheduler, int parallelism, int blockSize,
                         ChunkAllocator allocator) {
        this.key = key;
        this.salt = salt;
        this.scheduler = scheduler;
        this.parallelism = parallelism;
        this.blockSize = blockSize;
        this.allocator = allocator;
    }

    /** A context without key or salt: enough for stages that do not encrypt. */
    public static CodecContext keyless() {
        return new CodecContext(null, null, null, CodecWorkers.defaultParallelism(),
                DEFAULT_BLOCK_SIZE, ChunkAllocator.pooled());
    }

    /**
     * A context with a shared key and a salt. The salt must be unique per stream for a given key
     * (random 32 bytes, or the session's nonces): encryption stages derive their stream key from
     * both and number their nonces from zero.
     */
    public static CodecContext of(byte[] key, byte[] salt) {
        return keyless().withKey(key).withSalt(salt);
    }

    /** A context for a channel stream: the shared key and the session's salt (both nonces). */
    public static CodecContext forSession(Session session, byte[] key) {
        return of(key, session.salt());
    }

    /** As {@link #forSession(Session, byte[])} with the key as text (UTF-8), as the tools take it. */
    public static CodecContext forSession(Session session, String key) {
        return forSession(session, key.getBytes(StandardCharsets.UTF_8));
    }

    /** The shared key (a copy), or null when none was given. */
    public byte[] key() {
        return key == null ? null : key.clone();
    }

    /** The salt (a copy), or null when none was given. */
    public byte[] salt() {
        return salt == null ? null : salt.clone();
    }

    /** Scheduler the CPU-bound stages run their workers on; by default the shared pool, {@link CodecWorkers}. */
    public Scheduler scheduler() {
        return scheduler != null ? scheduler : CodecWorkers.scheduler();
    }

    /** Chunks a parallel stage works on at once; by default the number of cores. */
    public int parallelism() {
        return parallelism;
    }

    /**
     * The largest block the first stage encodes as one record, for stages used on their own
     * ({@link Codecs}); a chain sized for a frame size ({@link CodecChain#forFrameSize}) sets its
     * own. Decoders hold records of a stream that announced no bound to this plus
     * {@link #SPLIT_SLACK}.
     */
    public int blockSize() {
        return blockSize;
    }

    /**
     * Slack a stage allows above {@link #blockSize()} before it splits a chunk: the records of
     * an earlier stage in the chain are a few bytes larger than a block, and cutting a
     * 9-byte sliver off each of them would double the number of records and frames.
     */
    public static final int SPLIT_SLACK = 4096;

    /** Chunks larger than this are split (without copying) before a stage encodes them. */
    public int splitSize() {
        return blockSize + SPLIT_SLACK;
    }

    /** Where stages take their output buffers from. */
    public ChunkAllocator allocator() {
        return allocator;
    }

    public CodecContext withKey(byte[] key) {
        return new CodecContext(Objects.requireNonNull(key, "key").clone(), salt, scheduler, parallelism, blockSize, allocator);
    }

    public CodecContext withSalt(byte[] salt) {
        return new CodecContext(key, Objects.requireNonNull(salt, "salt").clone(), scheduler, parallelism, blockSize, allocator);
    }

    public CodecContext withScheduler(Scheduler scheduler) {
        return new CodecContext(key, salt, Objects.requireNonNull(scheduler), parallelism, blockSize, allocator);
    }

    public CodecContext withParallelism(int parallelism) {
        if (parallelism < 1 || parallelism > 256) {
            throw new IllegalArgumentException("parallelism must be between 1 and 256, was " + parallelism);
        }
        return new CodecContext(key, salt, scheduler, parallelism, blockSize, allocator);
    }

    public CodecContext withBlockSize(int blockSize) {
        if (blockSize < 1 || blockSize > RecordAssembler.MAX_RECORD - SPLIT_SLACK) {
            throw new IllegalArgumentException("block size must be between 1 and "
                    + (RecordAssembler.MAX_RECORD - SPLIT_SLACK) + ", was " + blockSize);
        }
        return new CodecContext(key, salt, scheduler, parallelism, blockSize, allocator);
    }

    public CodecContext withAllocator(ChunkAllocator allocator) {
        return new CodecContext(key, salt, scheduler, parallelism, blockSize, Objects.requireNonNull(allocator));
    }
}
