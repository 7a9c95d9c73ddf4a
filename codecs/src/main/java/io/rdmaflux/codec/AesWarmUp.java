package io.rdmaflux.codec;

import io.rdmaflux.buffer.Chunk;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.crypto.spec.SecretKeySpec;

/**
 * Gets the JDK's AES-GCM compiled with its intrinsics before real data arrives. Until the JIT has
 * seen enough calls, the JDK's GCM runs at about 90 MB/s instead of 2 to 3 GB/s per core, which
 * costs some 70 MiB of slow records per direction; sealing and opening {@value #DEFAULT_ROUNDS}
 * small records gets there in 0.2 to 0.6 s of one core. OpenSSL needs none of this.
 *
 * <p>Process-wide on purpose: what it warms is the JIT's code, of which a JVM has one. It runs
 * at most once per process, on a daemon thread of its own (never on an event loop or a codec
 * worker: {@link #run} is CPU-bound for that long), and keeps nothing once done. System
 * property {@code rdflux.aes.warmup}: the number of rounds, 0 for none.
 */
final class AesWarmUp {

    static final int DEFAULT_ROUNDS = 5000;
    private static final int ROUNDS = Integer.getInteger("rdflux.aes.warmup", DEFAULT_ROUNDS);
    private static final AtomicBoolean STARTED = new AtomicBoolean();

    private AesWarmUp() {
    }

    /** Starts the warm-up in the background when {@code provider} is the JDK's and it has not run yet. */
    static void startIfNeeded(AesGcmProvider provider) {
        if (provider.isOpenSsl() || ROUNDS <= 0 || !STARTED.compareAndSet(false, true)) {
            return;
        }
        Thread t = new Thread(() -> run(provider, ROUNDS), "rdflux-aes-warmup");
        t.setDaemon(true);
        t.start();
    }

    /** The rounds themselves: seals and opens small records with a throw-away key. */
    static void run(AesGcmProvider provider, int rounds) {
        AesGcmRecords records = new AesGcmRecords(new SecretKeySpec(new byte[32], "AES"), provider, ChunkAllocator.heap());
        ByteBuffer small = ByteBuffer.allocateDirect(4096);
        for (int i = 0; i < rounds; i++) {
            Chunk sealed = records.seal(Chunk.wrap(small.duplicate()), i);
            ByteBuffer copy = ByteBuffer.allocateDirect(sealed.remaining()).put(sealed.buffer().duplicate()).flip();
            sealed.release();
            records.open(Chunk.wrap(copy), i).release();
        }
    }
}
