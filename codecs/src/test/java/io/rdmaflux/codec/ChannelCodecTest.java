package io.rdmaflux.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.channel.FluxReceiver;
import io.rdmaflux.channel.FluxSender;
import io.rdmaflux.channel.ReceiverServer;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.memory.MemoryTransport;
import io.rdmaflux.transport.tcp.TcpTransport;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The stages through a real channel, used exactly as the command-line tools use them: the
 * sender puts the chain string in the metadata and encodes with a context from the session;
 * the receiver parses the chain from the metadata and decodes with its own session context.
 */
class ChannelCodecTest {

    static final String KEY = "shared key";
    /** Poisons released buffers, so a channel that reads a chunk after releasing it fails loudly. */
    static final ChunkAllocator SENDER_BUFFERS = new TestData.PoisonAllocator();

    static Transport transport(String name) {
        return name.equals("memory") ? new MemoryTransport() : new TcpTransport();
    }

    static byte[] data(int size) {
        Random r = new Random(size);
        byte[] d = new byte[size];
        byte[] text = TestData.compressible(r, size / 2);
        System.arraycopy(text, 0, d, 0, text.length);
        byte[] noise = TestData.random(r, size - text.length);
        System.arraycopy(noise, 0, d, text.length, noise.length);
        return d;
    }

    /** Sends {@code data} with {@code chainText}; returns what the receiver got, or throws the first failure. */
    static byte[] transfer(Transport transport, ChannelOptions options, String chainText, byte[] data,
                           AtomicReference<Throwable> receiverError) {
        ByteArrayOutputStream received = new ByteArrayOutputStream();
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key(KEY).transport(transport).options(options)
                .handle(in -> {
                    // rdrecv: the chain comes from the metadata; an unknown codec fails here, before any data moves.
                    CodecChain chain = CodecChain.parse(in.metadata().codecs());
                    return chain.decode(in.receiveChunks(), CodecContext.forSession(in.session(), KEY))
                            .doOnNext(c -> TestData.append(received, c))
                            .doOnError(receiverError::set)
                            .then();
                })
                .bind().block(Duration.ofSeconds(10));
        try {
            // rdsend: the chain, sized for the frames, goes into the metadata; the stages get the session's salt.
            CodecChain chain = CodecChain.parse(chainText).forFrameSize(options.frameSize());
            StreamMetadata meta = StreamMetadata.empty().with(StreamMetadata.CODECS, chain.format());
            FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key(KEY).transport(transport)
                    .options(options)
                    .send(meta, session -> chain.encode(pieces(data, chain.blockSize()),
                            CodecContext.forSession(session, KEY).withAllocator(SENDER_BUFFERS)))
                    .block(Duration.ofSeconds(60));
        } finally {
            server.dispose();
        }
        return received.toByteArray();
    }

    static Flux<Chunk> pieces(byte[] data, int size) {
        return Flux.range(0, (data.length + size - 1) / size).map(i -> {
            int off = i * size;
            ByteBuffer b = ByteBuffer.allocateDirect(Math.min(size, data.length - off));
            b.put(data, off, b.capacity()).flip();
            return Chunk.wrap(b);
        });
    }

    @ParameterizedTest(name = "{0} {1} frames of {2}")
    @CsvSource({
        "memory, 'zstd:1,aes-256-gcm:1', 4096",
        "memory, 'aes-256-gcm:1', 4096",
        "memory, 'zstd:1;level=3', 4096",
        "memory, 'zstd:1,aes-256-gcm:1', 1048576",
        "memory, 'aes-256-gcm:1,zstd:1', 65536",
        "memory, '', 65536",
    })
    void streamsArriveWholeThroughTheChannel(String transportName, String chain, int frameSize) {
        byte[] data = data(3_000_017);
        ChannelOptions options = ChannelOptions.defaults().withFrameSize(frameSize).withReceiveSlots(8).withSendSlots(4);
        AtomicReference<Throwable> err = new AtomicReference<>();
        byte[] got = transfer(transport(transportName), options, chain, data, err);
        assertThat(err.get()).isNull();
        assertThat(got).isEqualTo(data);
    }

    /**
     * Over real TCP on loopback. The codec workers emit chunks from their own threads, not from
     * the transport's event loop; this once made the TCP transport reorder frames (fixed in
     * the transport by writing every frame in order on the event loop).
     */
    @ParameterizedTest(name = "tcp {0} frames of {1}")
    @CsvSource({
        "'zstd:1,aes-256-gcm:1', 1048576",
        "'aes-256-gcm:1,zstd:1', 65536",
        "'', 65536",
    })
    void streamsArriveWholeOverTcp(String chain, int frameSize) {
        streamsArriveWholeThroughTheChannel("tcp", chain, frameSize);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 7})
    void aBitFlippedOnTheWireFailsBothSidesWithACodecError(int frameToHit) {
        MemoryTransport transport = new MemoryTransport();
        AtomicInteger dataFrames = new AtomicInteger();
        transport.tamper((fromSender, type, payload) -> {
            if (fromSender && type == FrameType.DATA && dataFrames.getAndIncrement() == frameToHit) {
                int at = payload.position() + payload.remaining() / 2;
                payload.put(at, (byte) (payload.get(at) ^ 0x20));
            }
            return MemoryTransport.Verdict.DELIVER;
        });
        ChannelOptions options = ChannelOptions.defaults().withFrameSize(16384).withReceiveSlots(8).withSendSlots(4);
        AtomicReference<Throwable> receiverError = new AtomicReference<>();
        // The sender learns the receiver's reason and code, so both tools exit with CODEC's exit code.
        assertThatThrownBy(() -> transfer(transport, options, "zstd:1,aes-256-gcm:1", data(500_000), receiverError))
                .isInstanceOfSatisfying(RdmaFluxException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CODEC))
                .hasMessageContaining("failed authentication");
        assertThat(receiverError.get()).isInstanceOfSatisfying(RdmaFluxException.class,
                e -> assertThat(e.code()).isEqualTo(ErrorCode.CODEC)).hasMessageContaining("failed authentication");
        TestData.awaitZero(transport::slotsInUse, "receive slots");
    }

    @ParameterizedTest
    @ValueSource(strings = {"lz5:1", "aes-256-gcm:9", "zstd:1;level=abc"})
    void unknownCodecIsRefusedBeforeDataAndTheSenderLearnsWhy(String chain) {
        MemoryTransport transport = new MemoryTransport();
        AtomicInteger delivered = new AtomicInteger();
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key(KEY).transport(transport)
                .handle(in -> Mono.defer(() -> {
                    CodecChain c = CodecChain.parse(in.metadata().codecs());
                    return c.decode(in.receiveChunks(), CodecContext.forSession(in.session(), KEY))
                            .doOnNext(x -> {
                                delivered.incrementAndGet();
                                x.release();
                            }).then();
                }))
                .bind().block(Duration.ofSeconds(10));
        try {
            StreamMetadata meta = StreamMetadata.empty().with(StreamMetadata.CODECS, chain);
            assertThatThrownBy(() -> FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key(KEY)
                    .transport(transport)
                    .send(meta, session -> Flux.just(Chunk.wrap(ByteBuffer.wrap(new byte[1000]))))
                    .block(Duration.ofSeconds(10)))
                    .isInstanceOf(RdmaFluxException.class)
                    .hasMessageContaining(chain.substring(0, 3));
        } finally {
            server.dispose();
        }
        assertThat(delivered.get()).isZero();
    }
}
