package io.rdmaflux.channel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.transport.Transport;
import io.rdmaflux.transport.TransportKind;
import io.rdmaflux.transport.memory.MemoryTransport;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The channel's builders: immutable (every setter gives a new instance and leaves the one it was
 * called on as it was), every option checked when it is given, and servers that can be disposed
 * and waited for.
 */
class BuildersTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    /** A valid value for each parameter type a setter takes. */
    private static final Map<Class<?>, Object> SAMPLES = Map.ofEntries(
            Map.entry(String.class, "other-host"),
            Map.entry(int.class, 4),
            Map.entry(long.class, 1L << 30),
            Map.entry(byte[].class, new byte[] {9}),
            Map.entry(TransportKind.class, TransportKind.TCP),
            Map.entry(Transport.class, new MemoryTransport()),
            Map.entry(ChannelOptions.class, ChannelOptions.defaults().withReceiveSlots(4)),
            Map.entry(Function.class, (Function<InboundStream, Mono<Void>>) in -> Mono.empty()),
            Map.entry(Duration.class, Duration.ofSeconds(7)),
            // Made lazily: no thread starts unless a connection runs on them.
            Map.entry(reactor.netty.resources.LoopResources.class, reactor.netty.resources.LoopResources.create("builders-test")),
            Map.entry(io.rdmaflux.protocol.StreamMetadata.class, io.rdmaflux.protocol.StreamMetadata.empty().with("name", "x")),
            Map.entry(String[].class, new String[] {"trace-id"}),
            Map.entry(StreamObserver.class, new StreamObserver() { }),
            Map.entry(SenderPool.class, SenderPool.create()));

    static Stream<Object> builders() {
        return Stream.of(FluxSender.create(), FluxReceiver.create(), ChannelOptions.defaults());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("builders")
    void everySetterGivesANewInstanceAndLeavesTheOriginalAsItWas(Object builder) throws Exception {
        Class<?> type = builder.getClass();
        List<String> setters = new ArrayList<>();
        for (Method m : type.getDeclaredMethods()) {
            if (!Modifier.isPublic(m.getModifiers()) || Modifier.isStatic(m.getModifiers()) || m.getReturnType() != type) {
                continue;
            }
            Object[] args = Arrays.stream(m.getParameterTypes()).map(SAMPLES::get).toArray();
            if (m.getName().equals("withLiveness")) {
                args = new Object[] {Duration.ofSeconds(1), Duration.ofSeconds(7)};
            } else if (m.getName().equals("withFrameSize")) {
                args = new Object[] {8192};
            }
            assertThat(args).as("a sample value for each parameter of %s", m).doesNotContainNull();
            List<Object> before = state(builder);
            Object copy = m.invoke(builder, args);
            assertThat(copy).as(m.getName()).isNotSameAs(builder);
            assertThat(state(builder)).as("%s left the original as it was", m.getName()).isEqualTo(before);
            assertThat(state(copy)).as("%s changed something in its copy", m.getName()).isNotEqualTo(before);
            setters.add(m.getName());
        }
        assertThat(setters).as("setters found").hasSizeGreaterThanOrEqualTo(5);
    }

    /**
     * The key array is copied: changing it afterwards changes nothing in the sender, whose stream
     * arrives whole; the same sender given the changed key is refused, so the key is what decides.
     */
    @Test
    void aKeyArrayChangedAfterItWasGivenChangesNothing() {
        MemoryTransport memory = new MemoryTransport();
        byte[] key = "right".getBytes(StandardCharsets.UTF_8);
        FluxSender sender = FluxSender.create().key(key).transport(memory);
        Arrays.fill(key, (byte) 'x');
        List<byte[]> received = new CopyOnWriteArrayList<>();
        ReceiverServer server = FluxReceiver.create().port(0).key("right").transport(memory)
                .handle(in -> in.aggregate(1024).doOnNext(b -> {
                    byte[] bytes = new byte[b.remaining()];
                    b.get(bytes);
                    received.add(bytes);
                }).then()).bind().block(WAIT);
        try {
            int port = server.address().getPort();
            sender.port(port).send(Flux.just(ByteBuffer.wrap(new byte[] {1, 2, 3}))).block(WAIT);
            assertThat(received).as("the stream the receiver took").containsExactly(new byte[] {1, 2, 3});
            assertThatThrownBy(() -> sender.key(key).port(port).send(Flux.just(ByteBuffer.wrap(new byte[] {4}))).block(WAIT))
                    .isInstanceOf(RdmaFluxException.class)
                    .satisfies(e -> assertThat(((RdmaFluxException) e).code())
                            .isEqualTo(ErrorCode.AUTHENTICATION));
            assertThat(received).as("nothing from the refused sender").hasSize(1);
        } finally {
            server.disposeNow(WAIT);
        }
    }

    static Stream<Arguments> badValues() {
        FluxSender s = FluxSender.create();
        FluxReceiver r = FluxReceiver.create();
        ChannelOptions o = ChannelOptions.defaults();
        ReceiverServer anyServer = new NeverStops();
        return Stream.of(
                bad("sender host null", () -> s.host(null), "host must not be null"),
                bad("sender host blank", () -> s.host(" "), "host must not be blank"),
                bad("sender port 0", () -> s.port(0), "port must be between 1 and 65535, was 0"),
                bad("sender port 65536", () -> s.port(65536), "port must be between 1 and 65535, was 65536"),
                bad("sender key null", () -> s.key((byte[]) null), "key must not be null"),
                bad("sender key text null", () -> s.key((String) null), "key must not be null"),
                bad("sender key empty", () -> s.key(new byte[0]), "key must not be empty"),
                bad("sender key text empty", () -> s.key(""), "key must not be empty"),
                bad("sender transport kind null", () -> s.transport((TransportKind) null), "transport must not be null"),
                bad("sender transport null", () -> s.transport((Transport) null), "transport must not be null"),
                bad("sender options null", () -> s.options(null), "options must not be null"),
                bad("receiver host null", () -> r.host(null), "host must not be null"),
                bad("receiver port -1", () -> r.port(-1), "port must be between 0 and 65535, was -1"),
                bad("receiver key empty", () -> r.key(new byte[0]), "key must not be empty"),
                bad("receiver transport null", () -> r.transport((Transport) null), "transport must not be null"),
                bad("receiver options null", () -> r.options(null), "options must not be null"),
                bad("receiver handler null", () -> r.handle(null), "handler must not be null"),
                bad("receiver maxUnauthenticated 0", () -> r.maxUnauthenticated(0), "maxUnauthenticated must be at least 1, was 0"),
                bad("frame size", () -> o.withFrameSize(4095), "frameSize must be between 4096 and 67108864, was 4095"),
                bad("receive slots", () -> o.withReceiveSlots(1), "receiveSlots must be between 2 and 4096, was 1"),
                bad("send slots", () -> o.withSendSlots(4097), "sendSlots must be between 1 and 4096, was 4097"),
                bad("connect timeout null", () -> o.withConnectTimeout(null), "connectTimeout must not be null"),
                bad("connect timeout negative", () -> o.withConnectTimeout(Duration.ofSeconds(-1)),
                        "connectTimeout must not be negative, was PT-1S"),
                bad("handshake timeout zero", () -> o.withHandshakeTimeout(Duration.ZERO),
                        "handshakeTimeout must be positive, was PT0S"),
                bad("heartbeat null", () -> o.withLiveness(null, Duration.ofSeconds(30)), "heartbeat must not be null"),
                bad("idle timeout short", () -> o.withLiveness(Duration.ofSeconds(2), Duration.ofSeconds(3)),
                        "idleTimeout must be at least twice the heartbeat (PT2S), was PT3S"),
                bad("disposeNow null", () -> anyServer.disposeNow(null), "timeout must not be null"),
                bad("disposeNow zero", () -> anyServer.disposeNow(Duration.ZERO), "timeout must be positive, was PT0S"));
    }

    private static Arguments bad(String name, Executable call, String message) {
        return Arguments.of(name, call, message);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badValues")
    void aBadValueFailsWhereItIsGivenNamingTheOption(String name, Executable call, String message) {
        assertThatThrownBy(call::execute).isExactlyInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }

    /** Zero is a valid connect timeout: the sender tries once. */
    @Test
    void aZeroConnectTimeoutIsAllowed() {
        assertThat(ChannelOptions.defaults().withConnectTimeout(Duration.ZERO).connectTimeout()).isZero();
    }

    /** What must be set is checked when the stream starts, since no setter can check it. */
    @Test
    void aMissingKeyOrHandlerFailsTheSubscriptionNotTheCall() {
        Mono<Void> send = FluxSender.create().send(Flux.empty());
        assertThatThrownBy(() -> send.block(WAIT)).isExactlyInstanceOf(IllegalStateException.class).hasMessage("no key set");
        Mono<ReceiverServer> noKey = FluxReceiver.create().port(0).handle(in -> Mono.empty()).bind();
        assertThatThrownBy(() -> noKey.block(WAIT)).isExactlyInstanceOf(IllegalStateException.class).hasMessage("no key set");
        Mono<ReceiverServer> noHandler = FluxReceiver.create().port(0).key("k").bind();
        assertThatThrownBy(() -> noHandler.block(WAIT)).isExactlyInstanceOf(IllegalStateException.class)
                .hasMessage("no handler set");
    }

    @Test
    void onDisposeCompletesOnceTheTcpPortIsReleased() throws Exception {
        ReceiverServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(TransportKind.TCP)
                .handle(in -> in.receive().then()).bind().block(WAIT);
        CompletableFuture<Void> disposed = server.onDispose().toFuture();
        assertThat(disposed).isNotDone();
        assertThat(server.isDisposed()).isFalse();

        server.disposeNow(WAIT);

        assertThat(disposed).isDone();
        assertThat(server.isDisposed()).isTrue();
        try (ServerSocket again = new ServerSocket()) {
            again.bind(new InetSocketAddress("127.0.0.1", server.address().getPort()));
        }
    }

    /** A one-stream server disposes itself when its stream ends; onDispose tells when it is done. */
    @Test
    void aSingleStreamServerIsDisposedWhenItsStreamEnds() {
        SingleStreamServer server = FluxReceiver.create().host("127.0.0.1").port(0).key("k").transport(TransportKind.TCP)
                .handle(in -> in.receive().then()).bindOne().block(WAIT);
        CompletableFuture<Void> disposed = server.onDispose().toFuture();
        CompletableFuture<Void> outcome = server.outcome().toFuture();
        FluxSender.create().host("127.0.0.1").port(server.address().getPort()).key("k").transport(TransportKind.TCP)
                .send(Flux.just(ByteBuffer.wrap(new byte[100]))).block(WAIT);
        assertThat(outcome).succeedsWithin(WAIT);
        assertThat(disposed).succeedsWithin(WAIT);
        assertThat(server.isDisposed()).isTrue();
    }

    @Test
    void disposeNowGivesUpAfterItsTimeoutSayingSo() {
        NeverStops server = new NeverStops();
        assertThatThrownBy(() -> server.disposeNow(Duration.ofMillis(50)))
                .isExactlyInstanceOf(IllegalStateException.class)
                .hasMessage("receiver on /127.0.0.1:9 did not stop within 50 ms");
        assertThat(server.isDisposed()).isTrue();
    }

    /** The fields of a builder, in declaration order, for before/after comparisons. */
    private static List<Object> state(Object builder) throws IllegalAccessException {
        List<Object> values = new ArrayList<>();
        for (Field f : builder.getClass().getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers())) {
                f.setAccessible(true);
                Object v = f.get(builder);
                values.add(v instanceof byte[] b ? List.of(Arrays.toString(b)) : v);
            }
        }
        return values;
    }

    /**
     * A server whose ports are never released, to see {@link ReceiverServer#disposeNow}'s own
     * timeout (no real transport can be made to hang on close).
     */
    private static final class NeverStops implements ReceiverServer {
        volatile boolean disposed;

        @Override
        public InetSocketAddress address() {
            return new InetSocketAddress("127.0.0.1", 9);
        }

        @Override
        public List<String> transports() {
            return List.of("none");
        }

        @Override
        public Mono<Void> onDispose() {
            return Mono.never();
        }

        @Override
        public void dispose() {
            disposed = true;
        }

        @Override
        public boolean isDisposed() {
            return disposed;
        }
    }
}
