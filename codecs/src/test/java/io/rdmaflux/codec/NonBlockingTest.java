package io.rdmaflux.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.channel.FluxReceiver;
import io.rdmaflux.channel.FluxSender;
import io.rdmaflux.channel.ReceiverServer;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.tcp.TcpTransport;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Flux;

/**
 * Nothing in the codec layer blocks a non-blocking thread: not the stages' workers, and not a
 * transport's event loop, where a receiver parses the chain and builds its decoder (rdrecv does,
 * in its stream handler). BlockHound records every blocking call on such a thread. Besides the
 * JDK's own blocking calls it watches the one-time work that must stay off those threads:
 * loading zstd-jni, loading the AES implementation (Commons Crypto, OpenSSL, the shim), and
 * the JDK cipher's JIT warm-up, which is marked blocking here because it takes a core for a
 * fraction of a second.
 *
 * <p>This class runs in a JVM of its own (see the pom), and its first test is the first use of
 * the stages in that JVM, so that the one-time work happens during it.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NonBlockingTest {

    static final List<String> BLOCKED = new CopyOnWriteArrayList<>();
    static final String KEY = "shared key";

    @BeforeAll
    static void installBlockHound() {
        BlockHound.install(b -> b
                .markAsBlocking(NonBlockingTest.class, "onAWatchedThread", "()V")
                .markAsBlocking(ZstdStage.class, "loadNative", "()V")
                .markAsBlocking(AesGcmProvider.class, "get", "()Lio/rdmaflux/codec/AesGcmProvider;")
                .markAsBlocking(AesWarmUp.class, "run", "(Lio/rdmaflux/codec/AesGcmProvider;I)V")
                // The engine's, not the codecs': a session reads its HELLO nonce from /dev/urandom.
                .allowBlockingCallsInside("io.rdmaflux.internal.protocol.Authenticator", "newNonce")
                .blockingMethodCallback(m -> {
                    if (!m.getName().equals("onAWatchedThread")) {
                        StringBuilder where = new StringBuilder(m + " on " + Thread.currentThread().getName());
                        for (StackTraceElement e : new Throwable().getStackTrace()) {
                            where.append("\n    at ").append(e);
                        }
                        BLOCKED.add(where.toString());
                    }
                    throw new BlockingOperationError(m);
                }));
    }

    /** Marked blocking: calling it shows that the calling thread is one BlockHound watches. */
    static void onAWatchedThread() {
    }

    static void probe() {
        try {
            onAWatchedThread();
        } catch (BlockingOperationError expected) {
            return;
        }
        throw new AssertionError("not on a non-blocking thread: " + Thread.currentThread().getName());
    }

    /**
     * Sends {@code data} over TCP on loopback; the receiver's handler and the sender's data
     * function run on event loops, where they build the stages as the tools do.
     */
    static byte[] transfer(byte[] data, String chainText, Function<CodecContext, Function<Flux<Chunk>, Flux<Chunk>>> encoder,
                           Function<CodecContext, Function<Flux<Chunk>, Flux<Chunk>>> decoder) {
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        TcpTransport tcp = new TcpTransport();
        ChannelOptions options = ChannelOptions.defaults().withFrameSize(256 * 1024);
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key(KEY).transport(tcp).options(options)
                .handle(in -> {
                    probe();
                    return decoder.apply(CodecContext.forSession(in.session(), KEY)).apply(in.receiveChunks())
                            .doOnNext(c -> TestData.append(received, c))
                            .then();
                })
                .bind().block(Duration.ofSeconds(10));
        try {
            FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key(KEY).transport(tcp).options(options)
                    .send(StreamMetadata.empty().with(StreamMetadata.CODECS, chainText), session -> {
                        probe();
                        return encoder.apply(CodecContext.forSession(session, KEY))
                                .apply(ChannelCodecTest.pieces(data, 200_000));
                    })
                    .block(Duration.ofSeconds(60));
        } finally {
            server.dispose();
        }
        return received.toByteArray();
    }

    @Test
    @Order(1)
    void aReceiverBuildsItsDecoderOnTheEventLoopAsRdrecvDoes() {
        byte[] data = TestData.compressible(new Random(3), 5 << 20);
        CodecChain sent = CodecChain.builder().zstd(1).aesGcm().build().forFrameSize(256 * 1024);
        byte[] got = transfer(data, sent.format(), sent::encoder, ctx -> in -> {
            // ReceiveCommand's handler: the chain from the metadata, the tools' announcement, the decoder.
            CodecChain chain = CodecChain.parse(sent.format());
            AesGcmStage.warmUp();
            AesGcmStage.describe().subscribe();
            return chain.decode(in, ctx);
        });
        assertThat(BLOCKED).isEmpty();
        assertThat(got).isEqualTo(data);
    }

    @Test
    @Order(3)
    void theJdkCiphersWarmUpStartsOffTheEventLoop() {
        // Where OpenSSL runs, nothing above warmed the JDK's cipher up: a stage with it starts that now.
        byte[] data = TestData.random(new Random(4), 1 << 20);
        AesGcmStage jdk = new AesGcmStage(AesGcmProvider.jdk());
        byte[] got = transfer(data, AesGcmStage.spec().format(), ctx -> jdk.encoder(AesGcmStage.spec(), ctx),
                ctx -> jdk.decoder(AesGcmStage.spec(), ctx));
        assertThat(BLOCKED).isEmpty();
        assertThat(got).isEqualTo(data);
    }

    @Test
    @Order(2)
    void stagesNeverBlockOnTheirWorkers() {
        Random r = new Random(12);
        byte[] data = TestData.compressible(r, 3 << 20);
        for (String chainText : new String[] {"zstd:1", "aes-256-gcm:1", "zstd:1;level=3,aes-256-gcm:1"}) {
            CodecChain chain = CodecChain.parse(chainText);
            CodecContext ctx = CodecContext.of("k".getBytes(), Codecs.newSalt()).withBlockSize(256 * 1024);
            byte[] wire = TestData.collect(chain.encode(new TestData.Tracker().source(data, 1 << 20), ctx));
            byte[] back = TestData.collect(chain.decode(TestData.recut(wire, r, 300_000, new TestData.Tracker()), ctx));
            assertThat(back).as(chainText).isEqualTo(data);
        }
        assertThat(BLOCKED).isEmpty();
    }
}
