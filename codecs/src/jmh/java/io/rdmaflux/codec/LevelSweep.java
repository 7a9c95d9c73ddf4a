package io.rdmaflux.codec;

import io.rdmaflux.buffer.Chunk;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Picks the default zstd level by measurement: for each level, the best of several rounds of
 * compressing and decompressing the corpus block by block on one core, the compressed size,
 * and from these the modelled end-to-end rate of a stream on N cores over a link of a given
 * speed: min(N x compress, N x decompress, link / ratio). On a noisy shared machine the best of
 * several interleaved rounds is the fairest number. Writes the corpus to a file (argument 1,
 * default /tmp/rdflux-corpus.bin) so the same bytes can go through the zstd command line.
 *
 * <pre>
 *   java -cp codecs/target/rdma-flux-codecs-benchmarks.jar io.rdmaflux.codec.LevelSweep
 * </pre>
 */
public final class LevelSweep {

    private LevelSweep() {
    }

    public static void main(String[] args) throws IOException {
        Path out = Paths.get(args.length > 0 ? args[0] : "/tmp/rdflux-corpus.bin");
        int[] levels = {-5, -3, -1, 1, 2, 3};
        int rounds = Integer.getInteger("rounds", 5);
        int cores = Integer.getInteger("cores", Runtime.getRuntime().availableProcessors());
        byte[] data = Corpus.load(Integer.getInteger("corpus.size", 64 << 20));
        Files.write(out, data);
        int block = CodecContext.DEFAULT_BLOCK_SIZE;
        int blocks = data.length / block;
        ByteBuffer[] plain = new ByteBuffer[blocks];
        for (int b = 0; b < blocks; b++) {
            plain[b] = ByteBuffer.allocateDirect(block).put(data, b * block, block).flip();
        }
        long bytes = (long) blocks * block;
        ChunkAllocator alloc = ChunkAllocator.pooled();
        double[] bestC = new double[levels.length];
        double[] bestD = new double[levels.length];
        long[] size = new long[levels.length];
        ByteBuffer[][] packed = new ByteBuffer[levels.length][blocks];
        for (int r = 0; r < rounds; r++) {
            for (int l = 0; l < levels.length; l++) {
                long t0 = System.nanoTime();
                long total = 0;
                for (int b = 0; b < blocks; b++) {
                    Chunk c = ZstdStage.compress(Chunk.wrap(plain[b].duplicate()), levels[l], alloc);
                    total += c.remaining();
                    if (packed[l][b] == null) {
                        packed[l][b] = ByteBuffer.allocateDirect(c.remaining()).put(c.buffer().duplicate()).flip();
                    }
                    c.release();
                }
                double c = bytes / 1e6 / ((System.nanoTime() - t0) / 1e9);
                bestC[l] = Math.max(bestC[l], c);
                size[l] = total;
                t0 = System.nanoTime();
                for (int b = 0; b < blocks; b++) {
                    ZstdStage.decompress(Chunk.wrap(packed[l][b].duplicate()), block, alloc).release();
                }
                bestD[l] = Math.max(bestD[l], bytes / 1e6 / ((System.nanoTime() - t0) / 1e9));
            }
        }
        System.out.printf("corpus %d MiB in %d blocks of %d bytes, best of %d rounds, %d cores modelled%n",
                bytes >> 20, blocks, block, rounds, cores);
        System.out.printf("%6s %8s %14s %16s %12s %12s %12s%n", "level", "ratio", "compress MB/s", "decompress MB/s",
                "e2e@1.25GB/s", "e2e@5GB/s", "e2e@12GB/s");
        for (int l = 0; l < levels.length; l++) {
            double ratio = (double) size[l] / bytes;
            System.out.printf("%6d %8.3f %14.0f %16.0f %12.0f %12.0f %12.0f%n", levels[l], ratio, bestC[l], bestD[l],
                    e2e(cores, bestC[l], bestD[l], ratio, 1250), e2e(cores, bestC[l], bestD[l], ratio, 5000),
                    e2e(cores, bestC[l], bestD[l], ratio, 12000));
        }
    }

    private static double e2e(int cores, double c, double d, double ratio, double linkMBs) {
        return Math.min(Math.min(cores * c, cores * d), linkMBs / ratio);
    }
}
