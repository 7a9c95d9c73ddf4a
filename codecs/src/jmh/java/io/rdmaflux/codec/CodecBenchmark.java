package io.rdmaflux.codec;

import io.rdmaflux.buffer.Chunk;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import javax.crypto.spec.SecretKeySpec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Per-core throughput of each stage's block function at the default block size
 * ({@link CodecContext#DEFAULT_BLOCK_SIZE}, about 1 MiB), on real mixed data (see {@link Corpus}).
 * One thread, so the score is per core: MB/s = ops/s x block size. The stages run one such call
 * per block on each of N workers.
 *
 * <pre>
 *   mvn -B -Pbenchmarks -pl codecs package -DskipTests
 *   java -jar codecs/target/rdma-flux-codecs-benchmarks.jar -f 1 -wi 2 -i 3 -w 2s -r 3s
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Threads(1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
public class CodecBenchmark {

    static final int BLOCK = CodecContext.DEFAULT_BLOCK_SIZE;
    static final int CORPUS = 48 << 20;

    @Param({"1"})
    public int level;

    private ByteBuffer[] plain;
    private ByteBuffer[] compressed;
    private ByteBuffer[] sealed;
    private SecretKeySpec key;
    private ChunkAllocator alloc;
    private int i;
    private long plainBytes;
    private long compressedBytes;

    @Setup(Level.Trial)
    public void setUp() {
        byte[] data = Corpus.load(CORPUS);
        int blocks = data.length / BLOCK;
        plain = new ByteBuffer[blocks];
        compressed = new ByteBuffer[blocks];
        sealed = new ByteBuffer[blocks];
        alloc = ChunkAllocator.pooled();
        key = AesGcmStage.streamKey(CodecContext.of("benchmark key".getBytes(), new byte[32]));
        for (int b = 0; b < blocks; b++) {
            ByteBuffer p = ByteBuffer.allocateDirect(BLOCK);
            p.put(data, b * BLOCK, BLOCK).flip();
            plain[b] = p;
            compressed[b] = copyOf(ZstdStage.compress(Chunk.wrap(p.duplicate()), level, alloc));
            sealed[b] = copyOf(AesGcmStage.seal(key, number(p.duplicate(), b), alloc));
            plainBytes += BLOCK;
            compressedBytes += compressed[b].remaining();
        }
        System.out.printf("%n[corpus] %d blocks of %d bytes; zstd level %d ratio %.3f (compressed/plain) %s%n",
                blocks, BLOCK, level, (double) compressedBytes / plainBytes, AesGcmStage.provider());
    }

    private static ByteBuffer copyOf(Chunk c) {
        ByteBuffer b = ByteBuffer.allocateDirect(c.remaining());
        b.put(c.buffer().duplicate()).flip();
        c.release();
        return b;
    }

    private static AesGcmStage.Numbered number(ByteBuffer b, long seq) {
        return AesGcmStage.Numbered.of(Chunk.wrap(b), seq);
    }

    private int next() {
        int n = i;
        i = (i + 1) % plain.length;
        return n;
    }

    @Benchmark
    public int zstdCompress() {
        Chunk out = ZstdStage.compress(Chunk.wrap(plain[next()].duplicate()), level, alloc);
        int n = out.remaining();
        out.release();
        return n;
    }

    @Benchmark
    public int zstdDecompress() {
        Chunk out = ZstdStage.decompress(Chunk.wrap(compressed[next()].duplicate()), alloc);
        int n = out.remaining();
        out.release();
        return n;
    }

    @Benchmark
    public int aesGcmSeal() {
        // A fresh sequence number each call: the JDK refuses to reuse a key and nonce.
        int b = next();
        Chunk out = AesGcmStage.seal(key, number(plain[b].duplicate(), seqs++), alloc);
        int n = out.remaining();
        out.release();
        return n;
    }

    private long seqs = 1L << 40;

    @Benchmark
    public int aesGcmOpen() {
        int b = next();
        Chunk out = AesGcmStage.open(key, number(sealed[b].duplicate(), b), alloc);
        int n = out.remaining();
        out.release();
        return n;
    }
}
