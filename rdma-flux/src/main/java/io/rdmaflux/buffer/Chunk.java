package io.rdmaflux.buffer;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * A lease on a region of bytes that travels through the channel: a received frame held in a
 * receive slot, a block read from a file into a pooled buffer, or the output of a codec stage.
 *
 * <p><b>Ownership rule.</b> Whoever holds a chunk must release it exactly once, when it no
 * longer needs the bytes. Handing a chunk to someone else (emitting it in {@code onNext},
 * passing it to a transport) hands over that duty. Releasing returns the memory to where it
 * came from: a receive slot goes back to the ring and its credit back to the sender, a pooled
 * buffer goes back to its pool. A second release is a bug and throws.
 *
 * <p>The bytes are those between the buffer's position and limit. Holders may read them and
 * move the position; only the current owner may do so.
 */
public abstract class Chunk {

    private static final AtomicIntegerFieldUpdater<Chunk> RELEASED =
            AtomicIntegerFieldUpdater.newUpdater(Chunk.class, "released");

    private final ByteBuffer buffer;
    private volatile int released;

    protected Chunk(ByteBuffer buffer) {
        this.buffer = buffer;
    }

    /** The bytes of this chunk, between position and limit. Valid until {@link #release()}. */
    public final ByteBuffer buffer() {
        if (released != 0) {
            throw new IllegalStateException("chunk used after release");
        }
        return buffer;
    }

    /** Number of bytes left in this chunk. */
    public final int remaining() {
        return buffer.remaining();
    }

    /** Whether this chunk has been released. */
    public final boolean isReleased() {
        return released != 0;
    }

    /**
     * Gives the memory back. Must be called exactly once by the chunk's final owner.
     *
     * @throws IllegalStateException when the chunk was already released
     */
    public final void release() {
        if (!RELEASED.compareAndSet(this, 0, 1)) {
            throw new IllegalStateException("chunk released twice");
        }
        deallocate();
    }

    /** Releases without complaint if already released; for clean-up paths that race with owners. */
    public final boolean releaseQuietly() {
        if (RELEASED.compareAndSet(this, 0, 1)) {
            deallocate();
            return true;
        }
        return false;
    }

    /** Returns the memory to its origin; called once, by {@link #release()}. */
    protected abstract void deallocate();

    /** A chunk over memory nobody needs back (a caller's own buffer, or heap garbage). */
    public static Chunk wrap(ByteBuffer buffer) {
        return of(buffer, () -> { });
    }

    /** A chunk that runs {@code onRelease} when it is released. */
    public static Chunk of(ByteBuffer buffer, Runnable onRelease) {
        return new Chunk(buffer) {
            @Override
            protected void deallocate() {
                onRelease.run();
            }
        };
    }

    @Override
    public String toString() {
        return "Chunk[" + buffer.remaining() + " bytes" + (released != 0 ? ", released" : "") + "]";
    }
}
