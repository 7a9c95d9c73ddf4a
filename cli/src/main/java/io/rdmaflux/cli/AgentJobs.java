package io.rdmaflux.cli;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.channel.FluxReceiver;
import io.rdmaflux.channel.FluxSender;
import io.rdmaflux.cli.remote.Agent;
import io.rdmaflux.cli.remote.AgentMessage;
import io.rdmaflux.codec.AesGcmStage;
import io.rdmaflux.codec.CodecChain;
import io.rdmaflux.codec.CodecContext;
import io.rdmaflux.connector.FileSink;
import io.rdmaflux.connector.FileSource;
import io.rdmaflux.connector.SourceOptions;
import io.rdmaflux.protocol.ErrorCode;
import io.rdmaflux.protocol.ProtocolException;
import io.rdmaflux.protocol.StreamMetadata;
import io.rdmaflux.transport.TransportKind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The jobs {@code rdflux agent} runs until the pipeline module's runner takes over: a pipeline
 * in the {@code rdflux run} format with the plugins that exist today. Sources {@code file}
 * and {@code receive}; stages {@code zstd} and {@code aes-256-gcm} before a {@code send} sink;
 * sinks {@code file} and {@code send}. A receiving source decodes what its sender announced,
 * as rdrecv does, and a send sink encodes with the job's stages, so each hop has its own keys.
 * Standard input and output are not offered: they carry the agent protocol.
 */
final class AgentJobs implements Agent.JobRunner {

    /** The stream a source passes on: plain (decoded) chunks and what its sender said about them. */
    private record Stream(Flux<Chunk> data, StreamMetadata metadata) {
    }

    private static final Set<String> CHANNEL_OPTIONS = Set.of("key", "transport", "frame-size", "slots");

    @Override
    public Mono<Void> run(AgentMessage.Job job, Agent.Control control) {
        Console.configure("rdflux agent", job.verbose(), job.debug());
        Map<String, Object> pipeline = job.pipeline();
        Options.of("pipeline", pipeline, Set.of("source", "stages", "sink"));
        Options source = Options.of("source", pipeline.get("source"), null);
        Options sink = Options.of("sink", pipeline.get("sink"), null);
        CodecChain chain = stages(pipeline.get("stages"));
        if (!chain.isEmpty() && !sink.type().equals("send")) {
            throw new IllegalArgumentException("job: stages need a send sink (they are undone by the receiver)");
        }
        AtomicBoolean started = new AtomicBoolean();
        Function<Stream, Mono<Void>> write = sink(sink, chain, control);
        Function<Stream, Mono<Void>> flow = s -> {
            started.set(true);
            control.started();
            Flux<Chunk> data = s.data().doOnNext(c -> control.moved(c.remaining()));
            return write.apply(new Stream(abortable(data, control), s.metadata()));
        };
        Mono<Void> work = source(source, flow, control, blockSize(chain, sink));
        // Before data flows there is nothing to clean up: an abort simply ends the wait.
        return Mono.firstWithSignal(work, control.aborted().then(Mono.defer(() -> started.get() ? Mono.never()
                : Mono.error(control.abortError()))));
    }

    /**
     * The data, failing with the abort error when the coordinator goes away: a failure (never an
     * early end) makes the sink remove its partial output and the channel tell its peer.
     */
    private static Flux<Chunk> abortable(Flux<Chunk> data, Agent.Control control) {
        AtomicBoolean aborted = new AtomicBoolean();
        return data.takeUntilOther(control.aborted().then(Mono.fromCallable(() -> {
                    aborted.set(true);
                    return 1;
                })))
                .concatWith(Mono.defer(() -> aborted.get() ? Mono.error(control.abortError()) : Mono.empty()));
    }

    private static Mono<Void> source(Options o, Function<Stream, Mono<Void>> flow, Agent.Control control, int block) {
        switch (o.type()) {
            case "file" -> {
                o.allow(Set.of("path"));
                FileSource file = FileSource.of(o.path("path"), SourceOptions.defaults().withChunkSize(block));
                return Mono.defer(() -> flow.apply(new Stream(file.open(), file.metadata())));
            }
            case "receive" -> {
                o.allow(Set.of("port", "bind", "require-encryption"), CHANNEL_OPTIONS);
                byte[] key = o.key();
                boolean requireEncryption = o.flag("require-encryption");
                return FluxReceiver.create()
                        .host(o.text("bind", "0.0.0.0")).port((int) o.integer("port", 0, 0, 65535)).key(key)
                        .transport(o.transport()).options(o.channelOptions())
                        .handle(in -> {
                            CodecChain announced = CodecChain.parse(in.metadata().codecs());
                            if (requireEncryption && !announced.contains(AesGcmStage.NAME)) {
                                throw new ProtocolException(ErrorCode.CODEC, "the sender did not encrypt the stream "
                                        + "(require-encryption is set)");
                            }
                            Flux<Chunk> data = in.receiveChunks();
                            if (!announced.isEmpty()) {
                                Codecs.announce(announced, false);
                                data = announced.decode(data, CodecContext.forSession(in.session(), key));
                            }
                            return flow.apply(new Stream(data, in.metadata()));
                        })
                        .bindOne()
                        .flatMap(server -> {
                            control.listening(server.address().getPort(), server.transports());
                            return server.outcome();
                        });
            }
            default -> throw o.unknownType("file, receive");
        }
    }

    private static Function<Stream, Mono<Void>> sink(Options o, CodecChain chain, Agent.Control control) {
        switch (o.type()) {
            case "file" -> {
                o.allow(Set.of("path"));
                FileSink file = FileSink.of(o.path("path"));
                return s -> file.write(s.data(), s.metadata()).then();
            }
            case "send" -> {
                o.allow(Set.of("host", "port"), CHANNEL_OPTIONS);
                byte[] key = o.key();
                FluxSender sender = FluxSender.create().key(key).transport(o.transport()).options(o.channelOptions());
                Mono<FluxSender> target = o.has("host") || o.has("port")
                        ? Mono.just(sender.host(o.text("host", null)).port((int) o.integer("port", 0, 1, 65535)))
                        : control.downstream().map(c -> sender.host(c.host()).port(c.port()));
                if (!chain.isEmpty()) {
                    Codecs.announce(chain, false);
                }
                return s -> target.flatMap(t -> t.send(metadata(s.metadata(), chain), session -> chain.isEmpty()
                        ? s.data() : chain.encode(s.data(), CodecContext.forSession(session, key))));
            }
            default -> throw o.unknownType("file, send");
        }
    }

    /** What the source said (name, size), with this hop's own chain instead of the previous hop's. */
    private static StreamMetadata metadata(StreamMetadata in, CodecChain chain) {
        Map<String, String> m = new LinkedHashMap<>(in.attributes());
        m.remove(StreamMetadata.CODECS);
        StreamMetadata out = new StreamMetadata(m);
        return chain.isEmpty() ? out : out.with(StreamMetadata.CODECS, chain.format());
    }

    private static int blockSize(CodecChain chain, Options sink) {
        int frame = sink.type().equals("send") ? sink.channelOptions().frameSize() : ChannelOptions.defaults().frameSize();
        return chain.isEmpty() ? frame : chain.blockSizeFor(frame);
    }

    private static CodecChain stages(Object stages) {
        CodecChain.Builder b = CodecChain.builder();
        if (stages == null) {
            return b.build();
        }
        if (!(stages instanceof List<?> list)) {
            throw new IllegalArgumentException("job: stages must be a list");
        }
        for (int i = 0; i < list.size(); i++) {
            Options o = Options.of("stages[" + i + "]", list.get(i), null);
            switch (o.type()) {
                case "zstd" -> {
                    o.allow(Set.of("level"));
                    b.zstd((int) o.integer("level", 1, -7, 22));
                }
                case AesGcmStage.NAME -> {
                    o.allow(Set.of());
                    b.aesGcm();
                }
                default -> throw o.unknownType("zstd, " + AesGcmStage.NAME);
            }
        }
        return b.build();
    }

    /** One plugin's options in a job, checked with messages that name the option. */
    private record Options(String where, Map<String, Object> values) {

        @SuppressWarnings("unchecked")
        static Options of(String where, Object value, Set<String> allowed) {
            if (!(value instanceof Map<?, ?> m)) {
                throw new IllegalArgumentException("job: " + where + " must be an object");
            }
            Options o = new Options(where, (Map<String, Object>) m);
            if (allowed != null) {
                o.check(allowed);
            } else if (!(o.values.get("type") instanceof String)) {
                throw new IllegalArgumentException("job: " + where + ".type is missing");
            }
            return o;
        }

        String type() {
            return (String) values.get("type");
        }

        void allow(Set<String> keys) {
            allow(keys, Set.of());
        }

        void allow(Set<String> keys, Set<String> more) {
            for (String k : values.keySet()) {
                if (!k.equals("type") && !keys.contains(k) && !more.contains(k)) {
                    throw new IllegalArgumentException("job: " + where + " (" + type() + ") has no option '" + k + "'");
                }
            }
        }

        private void check(Set<String> keys) {
            for (String k : values.keySet()) {
                if (!keys.contains(k)) {
                    throw new IllegalArgumentException("job: unknown key '" + k + "' in " + where);
                }
            }
        }

        boolean has(String key) {
            return values.containsKey(key);
        }

        String text(String key, String fallback) {
            Object v = values.get(key);
            if (v == null && fallback != null) {
                return fallback;
            }
            if (v instanceof String s && !s.isEmpty()) {
                return s;
            }
            throw bad(key, "must be a non-empty string");
        }

        long integer(String key, long fallback, long min, long max) {
            Object v = values.getOrDefault(key, fallback);
            if (v instanceof Long n && n >= min && n <= max) {
                return n;
            }
            throw bad(key, "must be an integer from " + min + " to " + max);
        }

        boolean flag(String key) {
            Object v = values.getOrDefault(key, Boolean.FALSE);
            if (v instanceof Boolean b) {
                return b;
            }
            throw bad(key, "must be true or false");
        }

        /** A path; {@code ~} and {@code ~/...} are the home directory, as a shell would have made them. */
        Path path(String key) {
            String p = text(key, null);
            if (p.equals("~") || p.startsWith("~/")) {
                p = System.getProperty("user.home") + p.substring(1);
            }
            try {
                return Path.of(p);
            } catch (java.nio.file.InvalidPathException e) {
                throw bad(key, "is not a usable path here (" + e.getReason() + ")");
            }
        }

        byte[] key() {
            if (!(values.get("key") instanceof String k) || k.isEmpty()) {
                throw new IllegalArgumentException("job: " + where + " (" + type() + ") gives no key");
            }
            return k.getBytes(StandardCharsets.UTF_8);
        }

        TransportKind transport() {
            String t = text("transport", "auto");
            if (!List.of("auto", "rdma", "tcp").contains(t)) {
                throw bad("transport", "must be auto, rdma or tcp");
            }
            return TransportKind.parse(t);
        }

        ChannelOptions channelOptions() {
            int slots = (int) integer("slots", 16, 2, 4096);
            return ChannelOptions.defaults().withFrameSize((int) integer("frame-size", 1 << 20, 4 << 10, 64 << 20))
                    .withReceiveSlots(slots).withSendSlots(slots);
        }

        IllegalArgumentException unknownType(String known) {
            return new IllegalArgumentException("job: " + where + " has unknown type '" + type() + "' (this agent knows "
                    + known + ")");
        }

        private IllegalArgumentException bad(String key, String what) {
            return new IllegalArgumentException("job: " + where + "." + key + " " + what);
        }
    }
}
