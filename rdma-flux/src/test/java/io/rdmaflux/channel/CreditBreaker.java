package io.rdmaflux.channel;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.internal.protocol.Authenticator;
import io.rdmaflux.internal.protocol.ControlFrames;
import io.rdmaflux.internal.protocol.FrameSeal;
import io.rdmaflux.internal.protocol.Hello;
import io.rdmaflux.internal.protocol.SessionKeys;
import io.rdmaflux.internal.protocol.StreamChecksum;
import io.rdmaflux.protocol.FrameType;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.FrameConnection;
import io.rdmaflux.transport.FrameHandler;
import io.rdmaflux.transport.Transport;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A sender that holds the key and passes the handshake as a real one does, then sends DATA
 * frames without counting credits: the authenticated peer that breaks the credit rule, which
 * {@link FluxSender} never is. It keeps the stream's checksum as a sender must, so that its END
 * matches every frame it sent.
 */
final class CreditBreaker implements FrameHandler, AutoCloseable {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final FrameConnection connection;
    private final Authenticator authenticator;
    private final ByteBuffer hello;
    private final StreamChecksum checksum = new StreamChecksum();
    private final CompletableFuture<Void> authenticated = new CompletableFuture<>();
    /** The receiver's ERROR, or null when the connection closed without one. */
    private final CompletableFuture<RdmaFluxException> ended = new CompletableFuture<>();
    private volatile SessionKeys keys;
    private volatile FrameSeal outgoing;
    private volatile FrameSeal incoming;

    private CreditBreaker(FrameConnection connection, String key, ChannelOptions options) {
        this.connection = connection;
        this.authenticator = new Authenticator(key.getBytes(StandardCharsets.UTF_8));
        this.hello = new Hello(Hello.Role.SENDER, Authenticator.newNonce(), options.frameSize(), options.receiveSlots())
                .encode().asReadOnlyBuffer();
    }

    /** Connects, passes the handshake, and returns once the receiver's AUTH arrived. */
    static CreditBreaker authenticate(Transport transport, int port, String key, ChannelOptions options) {
        FrameConnection connection = transport.connect(new InetSocketAddress("127.0.0.1", port),
                options.transportOptions()).block(WAIT);
        CreditBreaker peer = new CreditBreaker(connection, key, options);
        connection.sendControl(FrameType.HELLO, peer.hello.duplicate());
        connection.start(peer);
        await(peer.authenticated, "the receiver's AUTH");
        return peer;
    }

    /** Sends METADATA, as a stream's first frame after the handshake. */
    CreditBreaker metadata() {
        connection.sendControl(FrameType.METADATA, outgoing.seal(FrameType.METADATA, StreamMetadata.empty().encode()));
        return this;
    }

    /** Sends one DATA frame, credit or not. */
    CreditBreaker data(byte[] bytes) {
        checksum.update(ByteBuffer.wrap(bytes));
        connection.sendData(Chunk.wrap(ByteBuffer.wrap(bytes)));
        return this;
    }

    /** Sends END with the count and checksum of every DATA frame sent. */
    CreditBreaker end() {
        connection.sendControl(FrameType.END, outgoing.seal(FrameType.END, ControlFrames.end(checksum.bytes(), checksum.crc())));
        return this;
    }

    /** The receiver's ERROR once it closed the connection; null if it closed without one. */
    RdmaFluxException awaitEnded() {
        return await(ended, "the receiver's close");
    }

    @Override
    public void onControlFrame(FrameType type, ByteBuffer payload) {
        if (type == FrameType.HELLO) {
            keys = authenticator.keys(hello.duplicate(), payload.duplicate());
            connection.sendControl(FrameType.AUTH, ByteBuffer.wrap(keys.proof(Hello.Role.SENDER)));
            outgoing = keys.seal(Hello.Role.SENDER);
        } else if (type == FrameType.AUTH) {
            // The receiver seals every frame after its AUTH.
            incoming = keys.seal(Hello.Role.RECEIVER);
            authenticated.complete(null);
        } else if (type == FrameType.ERROR) {
            FrameSeal seal = incoming;
            ended.complete(ControlFrames.decodeError(seal == null ? payload : seal.open(type, payload)));
        } else if (incoming != null) {
            incoming.open(type, payload); // CREDIT or PING: opened to keep the seal's count
        }
    }

    @Override
    public void onDataFrame(Chunk payload) {
        payload.release();
    }

    @Override
    public void onSendSlotFree() {
        // Sends are not paced: that is the point of this peer.
    }

    @Override
    public void onClosed(Throwable cause) {
        ended.complete(null);
    }

    @Override
    public void close() {
        connection.close();
    }

    private static <T> T await(CompletableFuture<T> future, String what) {
        try {
            return future.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("no " + what + " within " + WAIT, e);
        }
    }
}
