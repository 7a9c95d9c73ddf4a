package io.rdmaflux.samples;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.codec.AesGcmStage;
import io.rdmaflux.codec.CodecChain;
import io.rdmaflux.codec.CodecContext;
import io.rdmaflux.codec.Codecs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * The codec stages as Reactor operators inside a service, without a channel: a file (or
 * generated text) is read in blocks, compressed with parallel zstd and sealed with AES-256-GCM,
 * then opened and decompressed again, and the program checks that the SHA-256 of the result
 * equals the input's. Then the same with a chain string that includes the custom
 * {@link Crc32cStage}, found through ServiceLoader.
 *
 * <pre>
 *   java -cp samples/target/classes:... io.rdmaflux.samples.CodecOperatorsSample [FILE]
 * </pre>
 */
public final class CodecOperatorsSample {

    private CodecOperatorsSample() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && !java.nio.file.Files.isRegularFile(Paths.get(args[0]))) {
            // One line, as the tools say it, rather than Reactor's wrapped exception and its trace.
            System.err.println("CodecOperatorsSample: cannot read " + args[0] + ": not a readable file");
            System.exit(66);
        }
        byte[] key = "a shared secret".getBytes(StandardCharsets.UTF_8);
        byte[] salt = Codecs.newSalt(); // one per stream, never reused with the same key

        AtomicLong plainBytes = new AtomicLong();
        AtomicLong sealedBytes = new AtomicLong();
        MessageDigest in = sha256();
        MessageDigest out = sha256();
        long start = System.nanoTime();

        // Sending half: blocks -> zstd level 1 -> AES-256-GCM. Receiving half: the inverse.
        source(args).doOnNext(c -> {
                    plainBytes.addAndGet(c.remaining());
                    in.update(c.buffer().duplicate());
                })
                .transform(Codecs.zstd(1))
                .transform(Codecs.aesGcmEncrypt(key, salt))
                .doOnNext(c -> sealedBytes.addAndGet(c.remaining()))
                .transform(Codecs.aesGcmDecrypt(key, salt))
                .transform(Codecs.unzstd())
                .doOnNext(c -> {
                    out.update(c.buffer().duplicate());
                    c.release();
                })
                .blockLast();

        double seconds = (System.nanoTime() - start) / 1e9;
        HexFormat hex = HexFormat.of();
        System.out.printf("%s%n", AesGcmStage.provider());
        System.out.printf("operators: %,d bytes -> %,d sealed (ratio %.3f), round trip %.0f MB/s, digests %s%n",
                plainBytes.get(), sealedBytes.get(), (double) sealedBytes.get() / Math.max(1, plainBytes.get()),
                plainBytes.get() / 1e6 / seconds, MessageDigest.isEqual(in.digest(), out.digest()) ? "match" : "DIFFER");

        // The same through a chain string, as a channel's metadata carries it, with the custom stage.
        CodecChain chain = CodecChain.parse("crc32c:1,zstd:1;level=3,aes-256-gcm:1");
        CodecContext ctx = CodecContext.of(key, Codecs.newSalt());
        MessageDigest a = sha256();
        MessageDigest b = sha256();
        chain.decode(chain.encode(source(args).doOnNext(c -> a.update(c.buffer().duplicate())), ctx), ctx)
                .doOnNext(c -> {
                    b.update(c.buffer().duplicate());
                    c.release();
                })
                .blockLast();
        byte[] da = a.digest();
        byte[] db = b.digest();
        System.out.printf("chain %s: digests %s, sha256 %s...%n", chain.format(),
                MessageDigest.isEqual(da, db) ? "match" : "DIFFER", hex.formatHex(db).substring(0, 16));
    }

    /** The file named on the command line in 1 MiB blocks, or 64 MiB of generated text. */
    static Flux<Chunk> source(String[] args) {
        int block = CodecContext.DEFAULT_BLOCK_SIZE;
        if (args.length > 0) {
            Path path = Paths.get(args[0]);
            return Flux.using(() -> FileChannel.open(path, StandardOpenOption.READ),
                    ch -> Flux.<Chunk>generate(sink -> {
                        ByteBuffer b = ByteBuffer.allocateDirect(block);
                        try {
                            while (b.hasRemaining() && ch.read(b) >= 0) {
                                // fill the block
                            }
                        } catch (IOException e) {
                            sink.error(e);
                            return;
                        }
                        b.flip();
                        if (b.hasRemaining()) {
                            sink.next(Chunk.wrap(b));
                        } else {
                            sink.complete();
                        }
                    }).subscribeOn(Schedulers.boundedElastic(), false),
                    ch -> {
                        try {
                            ch.close();
                        } catch (IOException e) {
                            // nothing to do
                        }
                    });
        }
        String line = "rdma-flux moves byte streams between hosts as fast as the network allows.\n";
        byte[] text = line.repeat(block / line.length() + 1).getBytes(StandardCharsets.US_ASCII);
        return Flux.range(0, 64).map(i -> {
            ByteBuffer b = ByteBuffer.allocateDirect(block);
            b.put(text, 0, block).flip();
            b.put(i % block, (byte) i.intValue());
            return Chunk.wrap(b);
        });
    }

    private static MessageDigest sha256() throws NoSuchAlgorithmException {
        return MessageDigest.getInstance("SHA-256");
    }
}
