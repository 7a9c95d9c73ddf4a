package io.rdmaflux.codec;

import io.rdmaflux.buffer.Chunk;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
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
 * per block on each of N workers. {@code aes=openssl} is the implementation this process chose
 * (OpenSSL where it loads; the header line says which), {@code aes=jdk} the JDK's cipher; {@code
 * crc32c} is what the channel spends on every byte of a plain stream, for scale.
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

    @Param({"openssl", "jdk"})
    public String aes;

    private ByteBuffer[] plain;
    private ByteBuffer[] compressed;
    private ByteBuffer[] sealed;
    private AesGcmRecords records;
    private ChunkAllocator alloc;
    private final CRC32C crc = new CRC32C();
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
        SecretKeySpec key = AesGcmRecords.streamKey(CodecContext.of("benchmark key".getBytes(), new byte[32]));
        AesGcmProvider provider = aes.equals("jdk") ? AesGcmProvider.jdk() : AesGcmProvider.get();
        records = new AesGcmRecords(key, provider, alloc);
        for (int b = 0; b < blocks; b++) {
            ByteBuffer p = ByteBuffer.allocateDirect(BLOCK);
            p.put(data, b * BLOCK, BLOCK).flip();
            plain[b] = p;
            compressed[b] = copyOf(ZstdStage.compress(Chunk.wrap(p.duplicate()), level, alloc));
            sealed[b] = copyOf(records.seal(Chunk.wrap(p.duplicate()), b));
            plainBytes += BLOCK;
            compressedBytes += compressed[b].remaining();
        }
        System.out.printf("%n[corpus] %d blocks of %d bytes; zstd level %d ratio %.3f (compressed/plain) %s%n",
                blocks, BLOCK, level, (double) compressedBytes / plainBytes,
                provider.description());
    }

    private static ByteBuffer copyOf(Chunk c) {
        ByteBuffer b = ByteBuffer.allocateDirect(c.remaining());
        b.put(c.buffer().duplicate()).flip();
        c.release();
        return b;
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
        Chunk out = ZstdStage.decompress(Chunk.wrap(compressed[next()].duplicate()), BLOCK, alloc);
        int n = out.remaining();
        out.release();
        return n;
    }

    @Benchmark
    public int aesGcmSeal() {
        // A fresh sequence number each call: the JDK refuses to reuse a key and nonce.
        int b = next();
        Chunk out = records.seal(Chunk.wrap(plain[b].duplicate()), seqs++);
        int n = out.remaining();
        out.release();
        return n;
    }

    private long seqs = 1L << 40;

    @Benchmark
    public int aesGcmOpen() {
        int b = next();
        Chunk out = records.open(Chunk.wrap(sealed[b].duplicate()), b);
        int n = out.remaining();
        out.release();
        return n;
    }

    @Benchmark
    public long crc32c() {
        crc.reset();
        crc.update(plain[next()].duplicate());
        return crc.getValue();
    }
}
