package io.rdmaflux.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmaflux.channel.LiveStream;
import io.rdmaflux.channel.StreamObserver;
import io.rdmaflux.channel.StreamOutcome;
import io.rdmaflux.error.ErrorCode;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;

/**
 * The channel's meters in a Micrometer registry: a {@link StreamObserver} to give a
 * {@code FluxSender} and a {@code FluxReceiver} ({@code observe(metrics)}); one instance may
 * serve both and any number of them, its meters tagged by {@code side} ({@code sender},
 * {@code receiver}).
 *
 * <ul>
 * <li>{@code rdmaflux.streams.active} (gauge): streams started and not ended.</li>
 * <li>{@code rdmaflux.streams} (counter, tag {@code result}: {@code succeeded},
 *     {@code stopped}, {@code failed}): streams ended, and connections that ended before their
 *     stream started (a failed connect or handshake, counted as failed).</li>
 * <li>{@code rdmaflux.stream.failures} (counter, tag {@code code}: the {@link ErrorCode}'s
 *     name): failed streams by cause.</li>
 * <li>{@code rdmaflux.bytes} (function counter, base unit bytes): stream bytes sent or
 *     received, ended streams and running ones alike.</li>
 * <li>{@code rdmaflux.credits.in.flight} (gauge): DATA frames that used a credit not yet given
 *     back, over the running streams; a sender's stays at the receiver's ring size while the
 *     receiver is the slow side.</li>
 * </ul>
 *
 * <pre>{@code
 * ChannelMetrics metrics = ChannelMetrics.of(registry);
 * FluxReceiver.create().port(7691).key(secret).observe(metrics).handle(...).bind();
 * }</pre>
 */
public final class ChannelMetrics implements StreamObserver {

    private final MeterRegistry registry;
    private final Map<StreamOutcome.Side, Side> sides = new EnumMap<>(StreamOutcome.Side.class);

    private ChannelMetrics(MeterRegistry registry) {
        this.registry = registry;
        for (StreamOutcome.Side side : StreamOutcome.Side.values()) {
            sides.put(side, new Side(side));
        }
    }

    /** Meters in {@code registry}, registered at once (at zero). */
    public static ChannelMetrics of(MeterRegistry registry) {
        if (registry == null) {
            throw new IllegalArgumentException("registry must not be null");
        }
        return new ChannelMetrics(registry);
    }

    @Override
    public void onStart(LiveStream stream) {
        sides.get(stream.side()).live.add(stream);
    }

    @Override
    public void onEnd(LiveStream stream, StreamOutcome outcome) {
        Side side = sides.get(outcome.side());
        // Its bytes move from the running streams to the total; a read in between may miss
        // them once, never count them twice.
        side.live.remove(stream);
        if (outcome.started()) {
            side.endedBytes.add(outcome.bytes());
        }
        side.ended.get(outcome.result()).increment();
        if (outcome.result() == StreamOutcome.Result.FAILED) {
            Counter.builder("rdmaflux.stream.failures").description("failed streams by cause")
                    .tag("side", side.tag).tag("code", outcome.code().name())
                    .register(registry).increment();
        }
    }

    /** One side's meters and the streams they read. */
    private final class Side {
        final String tag;
        final Set<LiveStream> live = ConcurrentHashMap.newKeySet();
        final LongAdder endedBytes = new LongAdder();
        final Map<StreamOutcome.Result, Counter> ended = new EnumMap<>(StreamOutcome.Result.class);

        Side(StreamOutcome.Side side) {
            tag = side.name().toLowerCase(Locale.ROOT);
            Gauge.builder("rdmaflux.streams.active", live, Set::size).description("streams running")
                    .tag("side", tag).register(registry);
            FunctionCounter.builder("rdmaflux.bytes", this, s -> s.sum(LiveStream::bytes) + s.endedBytes.sum())
                    .description("stream bytes sent or received").baseUnit("bytes").tag("side", tag)
                    .register(registry);
            Gauge.builder("rdmaflux.credits.in.flight", this, s -> s.sum(LiveStream::creditsInFlight))
                    .description("DATA frames whose credit has not come back to the sender")
                    .tag("side", tag).register(registry);
            for (StreamOutcome.Result r : StreamOutcome.Result.values()) {
                ended.put(r, Counter.builder("rdmaflux.streams").description("streams ended, by result")
                        .tag("side", tag).tag("result", r.name().toLowerCase(Locale.ROOT)).register(registry));
            }
        }

        double sum(ToDoubleFunction<LiveStream> value) {
            double total = 0;
            for (LiveStream s : live) {
                total += value.applyAsDouble(s);
            }
            return total;
        }
    }
}
