package io.rdmaflux.samples;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.channel.FluxReceiver;
import io.rdmaflux.channel.FluxSender;
import io.rdmaflux.channel.InboundStream;
import io.rdmaflux.channel.ReceiverServer;
import io.rdmaflux.channel.SenderPool;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.metrics.ChannelMetrics;
import io.rdmaflux.protocol.StreamMetadata;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;

/**
 * A storage service on the channel: a receiver that keeps each stream as a file in a directory,
 * within a byte budget, and a client that sends many streams at once. It shows what a service
 * uses beyond one stream: a trace id carried in the Reactor Context from the client to the
 * handler ({@code carryContext}), a refusal a client can tell apart (the store full), per-stream
 * outcomes as Micrometer meters ({@link ChannelMetrics}), and bounded memory per stream.
 *
 * <pre>
 *   java -cp ... io.rdmaflux.samples.StoreService DIR COUNT SIZE BUDGET
 * </pre>
 *
 * stores COUNT streams of SIZE bytes in DIR under a budget of BUDGET bytes, on loopback, and
 * prints what was stored, what was refused and the receiver's meters.
 */
public final class StoreService implements AutoCloseable {

    /** The Context key of the trace id that travels with each stream. */
    public static final String TRACE_ID = "trace-id";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
    /**
     * Memory per stream: the receive ring is 4 frames of 64 KiB, 256 KiB of direct memory per
     * stream whatever its length.
     */
    static final ChannelOptions OPTIONS = ChannelOptions.defaults().withFrameSize(64 * 1024).withReceiveSlots(4);
    /**
     * The receiver's memory budget: 8 rings, 2 MiB of direct memory for all streams at once; a
     * ninth stream at the same time is refused with BUSY before its ring is allocated.
     */
    static final long MEMORY_BUDGET = 8L * 64 * 1024 * 4;

    private final Path dir;
    private final long budget;
    private final AtomicLong reserved = new AtomicLong();
    private final Map<String, String> traceIds = new ConcurrentHashMap<>();
    private final ReceiverServer server;

    private StoreService(Path dir, long budget, String key, MeterRegistry registry) {
        this.dir = dir;
        this.budget = budget;
        this.server = FluxReceiver.create().host("127.0.0.1").port(0).key(key).options(OPTIONS)
                .memoryBudget(MEMORY_BUDGET)
                .observe(ChannelMetrics.of(registry))
                .handle(this::store)
                .bind().block(Duration.ofSeconds(30));
    }

    /** Starts a store in {@code dir} (which exists) that keeps at most {@code budget} bytes. */
    public static StoreService start(Path dir, long budget, String key, MeterRegistry registry) {
        return new StoreService(dir, budget, key, registry);
    }

    /** The port it listens on (loopback). */
    public int port() {
        return server.address().getPort();
    }

    /** The trace id each stored stream came with, by name. */
    public Map<String, String> traceIds() {
        return Map.copyOf(traceIds);
    }

    /**
     * One stream: refused before a byte is read when its name is bad, its size unknown or
     * beyond what is left of the budget; otherwise written to {@code .NAME.part} and renamed
     * when whole, so that a failed stream leaves nothing behind.
     */
    private Mono<Void> store(InboundStream in) {
        return Mono.deferContextual(ctx -> {
            String name = in.metadata().get(StreamMetadata.NAME);
            long size = in.metadata().size();
            if (name == null || !NAME.matcher(name).matches() || size < 0) {
                return Mono.error(new RdmaFluxException(ErrorCode.SINK_FAILED, "refused: a stream needs a plain "
                        + "name and a size"));
            }
            if (reserved.addAndGet(size) > budget) {
                reserved.addAndGet(-size);
                return Mono.error(new RdmaFluxException(ErrorCode.SINK_FAILED, "store full: " + name + " needs "
                        + size + " bytes, " + Math.max(0, budget - reserved.get()) + " are left"));
            }
            Path part = dir.resolve("." + name + ".part");
            return Mono.using(() -> FileChannel.open(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                                    StandardOpenOption.TRUNCATE_EXISTING),
                            file -> in.receive()
                                    .concatMap(buffer -> Mono.fromCallable(() -> writeFully(file, buffer))
                                            .subscribeOn(Schedulers.boundedElastic()))
                                    .reduce(0L, Long::sum)
                                    .flatMap(written -> written == size ? Mono.empty() : Mono.error(
                                            new RdmaFluxException(ErrorCode.SINK_FAILED, name + ": " + written
                                                    + " bytes arrived, the sender said " + size))),
                            StoreService::closeQuietly)
                    .then(Mono.fromCallable(() -> Files.move(part, dir.resolve(name),
                            StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE))
                            .subscribeOn(Schedulers.boundedElastic()))
                    .doOnSuccess(x -> traceIds.put(name, ctx.getOrDefault(TRACE_ID, "")))
                    .doOnError(e -> {
                        reserved.addAndGet(-size);
                        deleteQuietly(part);
                    })
                    .then();
        });
    }

    private static long writeFully(FileChannel file, ByteBuffer buffer) throws IOException {
        long n = buffer.remaining();
        while (buffer.hasRemaining()) {
            file.write(buffer);
        }
        return n;
    }

    private static void closeQuietly(FileChannel file) {
        try {
            file.close();
        } catch (IOException e) {
            // The write's own failure, if any, is the one reported.
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            // Nothing more to do for a partial file that cannot go.
        }
    }

    @Override
    public void close() {
        server.dispose();
    }

    /** What a client's run came to: the names stored, and each refusal's message by name. */
    public record Sent(java.util.List<String> stored, Map<String, String> refused) {
    }

    /**
     * The client: sends {@code count} streams named {@code obj-0...} of {@code size} bytes each,
     * at most 4 at once, each with the trace id {@code trace-NAME} in its Context, carried to
     * the store. A stream the store refuses is a refusal, not the client's failure. The client
     * keeps its connections between streams (a {@link SenderPool}, disposed when the run ends), so
     * each stream after the first four costs a NEXT round trip, not a connect and a handshake.
     */
    public static Mono<Sent> sendMany(int port, String key, int count, int size) {
        return Mono.using(SenderPool::create, pool -> sendMany(FluxSender.create().host("127.0.0.1").port(port).key(key)
                .options(OPTIONS).carryContext(TRACE_ID).pool(pool), count, size), SenderPool::dispose);
    }

    private static Mono<Sent> sendMany(FluxSender sender, int count, int size) {
        Map<String, String> refused = new ConcurrentHashMap<>();
        return Flux.range(0, count)
                .flatMap(i -> {
                    String name = "obj-" + i;
                    StreamMetadata meta = StreamMetadata.empty().with(StreamMetadata.NAME, name)
                            .with(StreamMetadata.SIZE, Integer.toString(size));
                    return sender.send(meta, session -> Flux.just(io.rdmaflux.buffer.Chunk.wrap(content(name, size))))
                            .contextWrite(Context.of(TRACE_ID, "trace-" + name))
                            .thenReturn(name)
                            .onErrorResume(e -> e instanceof RdmaFluxException pe && pe.reportedByPeer(), e -> {
                                refused.put(name, e.getMessage());
                                return Mono.empty();
                            });
                }, 4)
                .collectSortedList()
                .map(stored -> new Sent(stored, Map.copyOf(refused)));
    }

    /** A stream's bytes, made from its name, so that the store's files can be checked. */
    public static ByteBuffer content(String name, int size) {
        ByteBuffer b = ByteBuffer.allocate(size);
        long x = name.hashCode();
        while (b.hasRemaining()) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            b.put((byte) (x >>> 56));
        }
        return b.flip();
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 4) {
            System.err.println("usage: StoreService DIR COUNT SIZE BUDGET");
            System.exit(64);
        }
        Path dir = Files.createDirectories(Path.of(args[0]));
        MeterRegistry registry = new SimpleMeterRegistry();
        PrintStream out = System.out;
        try (StoreService store = start(dir, Long.parseLong(args[3]), "sample-key", registry)) {
            Sent sent = sendMany(store.port(), "sample-key", Integer.parseInt(args[1]), Integer.parseInt(args[2]))
                    .block(Duration.ofMinutes(5));
            out.println("stored " + sent.stored().size() + ", refused " + sent.refused().size());
            sent.refused().values().stream().sorted().limit(3).forEach(m -> out.println("  " + m));
        }
        // The receiver's meters; the client's sender has none here (it was not given them).
        registry.getMeters().stream().filter(m -> "receiver".equals(m.getId().getTag("side")))
                .flatMap(m -> java.util.stream.StreamSupport.stream(m.measure().spliterator(), false)
                        .map(x -> m.getId().getName() + " " + m.getId().getTags() + " " + x.getValue()))
                .sorted().forEach(out::println);
    }
}
