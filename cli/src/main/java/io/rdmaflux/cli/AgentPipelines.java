package io.rdmaflux.cli;

import io.rdmaflux.channel.ChannelOptions;
import io.rdmaflux.cli.remote.Agent;
import io.rdmaflux.cli.remote.AgentMessage;
import io.rdmaflux.cli.remote.PartialTransferException;
import io.rdmaflux.pipeline.PipelineListener;
import io.rdmaflux.pipeline.PipelineMetrics;
import io.rdmaflux.pipeline.TreeCopySource;
import io.rdmaflux.pipeline.config.ValueType;
import io.rdmaflux.pipeline.plugin.PipelineConfig;
import io.rdmaflux.pipeline.plugin.PluginRegistry;
import io.rdmaflux.pipeline.plugin.ProcessContext;
import io.rdmaflux.transport.TransportOptions;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Mono;

/**
 * What {@code rdflux agent} runs: the job's pipeline, built with the same plugins and checks as
 * {@code rdflux run} (the built-in ones and the remote user's plugin directory), its events
 * reported to the coordinator. A {@code send} sink given no host and port connects where the
 * coordinator's {@code connect} message says (it is validated with placeholders for them); when the coordinator goes away, the run fails
 * with the agent's abort error, so that partial output is removed and peers are told. A tree
 * that arrived but for some files ends as a {@link PartialTransferException} naming them.
 * Standard input and output carry the agent protocol, so the stdin and stdout plugins cannot be
 * used in a job.
 */
final class AgentPipelines implements Agent.JobRunner {

    private final ProcessContext process;
    /** Whether the jobs come from a coordinator on another host: a refusal's words then speak of "there". */
    private final boolean agent;

    /** Jobs whose commands run in this process's environment; {@code agent}: this is {@code rdflux agent}, not rdcp's own end. */
    AgentPipelines(boolean agent) {
        this(ProcessContext.inherited(), agent);
    }

    /** Jobs whose commands run in {@code process} (a warm agent's session: that session's environment and stderr). */
    AgentPipelines(ProcessContext process, boolean agent) {
        this.process = process;
        this.agent = agent;
    }

    @Override
    public Mono<Void> run(AgentMessage.Job job, Agent.Control control) {
        Map<String, Object> pipeline = job.pipeline();
        boolean deferred = pipeline.get("sink") instanceof Map<?, ?> sink && "send".equals(sink.get("type"))
                && !sink.containsKey("host") && !sink.containsKey("port")
                // A send sink with a list of destinations (to:) names them all itself.
                && !sink.containsKey("to")
                // A relay (rdcp's fan-out) forwards where the coordinator says, as a send sink connects.
                || pipeline.get("source") instanceof Map<?, ?> source && "receive".equals(source.get("type"))
                && source.containsKey("forward");
        Map<String, String> env = process.view();
        PipelineConfig config = config(pipeline, PluginRegistry.load(PluginRegistry.defaultDirectory(env)), deferred, env);
        PipelineListener listener = new PipelineListener() {
            @Override
            public void onListening(InetSocketAddress address, List<String> transports) {
                control.listening(address.getPort(), transports);
            }

            @Override
            public void onStart(PipelineMetrics metrics) {
                String files = metrics.metadata().get(TreeCopySource.FILES);
                String bytes = metrics.metadata().get(TreeCopySource.BYTES);
                if (files != null && bytes != null) {
                    control.count().totals(parse(files), parse(bytes));
                }
                control.started();
            }

            @Override
            public void onSourceBytes(long bytes) {
                control.count().moved(bytes);
            }

            @Override
            public void onSourceHole(long bytes) {
                control.count().hole(bytes);
            }

            @Override
            public void onLink() {
                control.count().link();
            }

            @Override
            public void onFile(long bytes) {
                control.count().file(bytes);
            }

            @Override
            public void onFileKept() {
                control.count().kept();
            }

            @Override
            public void onTreeEntry(String path, TreeChange change) {
                if (job.names() >= (change == TreeChange.UNCHANGED ? 2 : 1)) {
                    control.entry(new AgentMessage.Entry(path, change.name().toLowerCase(java.util.Locale.ROOT)));
                }
            }
        };
        // Port 0: no host to send to after all (a relay whose next hosts all failed): nothing is sent.
        Mono<InetSocketAddress> downstream = control.downstream()
                .filter(c -> c.port() != 0)
                .map(c -> InetSocketAddress.createUnresolved(c.host(), c.port()));
        return Mono.fromCallable(() -> {
                    checkBudget(pipeline, agent);   // before it listens or connects: refused in one line
                    return config.toPipeline(deferred ? downstream : null, process);
                })
                .flatMap(p -> p.listener(listener)
                        .failOn(control.aborted().then(Mono.fromSupplier(control::abortError)))
                        .run())
                .flatMap(result -> result.sink().complete() ? Mono.<Void>empty()
                        : Mono.error(new PartialTransferException(result.sink().failures())));
    }

    /**
     * The job's pipeline map ({@code {"source": {...}, "filters": [...], "stages": [...], "sink":
     * {...}}}, each a plugin's options with its {@code type}) as a checked configuration; stdin
     * and stdout are refused (they carry the agent protocol).
     *
     * @throws io.rdmaflux.pipeline.config.ConfigException with every problem (exit 78)
     * @param deferred the send sink has no host and port yet: validate it with placeholders
     * @throws IllegalArgumentException when the map does not have that shape
     */
    static PipelineConfig config(Map<String, Object> pipeline, PluginRegistry plugins, boolean deferred) {
        return config(pipeline, plugins, deferred, System.getenv());
    }

    /** {@link #config} for a run in {@code env} (a warm session's: where ~ leads, where a key-env is read). */
    static PipelineConfig config(Map<String, Object> pipeline, PluginRegistry plugins, boolean deferred,
                                 Map<String, String> env) {
        for (String end : List.of("source", "sink")) {
            if (pipeline.get(end) instanceof Map<?, ?> m && List.of("stdin", "stdout").contains(m.get("type"))) {
                throw new IllegalArgumentException("job: " + end + " '" + m.get("type") + "' is not available in an agent: "
                        + "its standard input and output carry the agent protocol");
            }
        }
        return fromMap(pipeline, plugins, deferred, env);
    }

    /** {@link #config} without the agent's own restriction: what rdpipe's local hops use too. */
    static PipelineConfig fromMap(Map<String, Object> pipeline, PluginRegistry plugins, boolean deferred) {
        return fromMap(pipeline, plugins, deferred, System.getenv());
    }

    private static PipelineConfig fromMap(Map<String, Object> pipeline, PluginRegistry plugins, boolean deferred,
                                          Map<String, String> env) {
        for (String key : pipeline.keySet()) {
            if (!List.of("source", "filters", "stages", "sink").contains(key)) {
                throw new IllegalArgumentException("job: unknown key '" + key + "' in the pipeline");
            }
        }
        PipelineConfig.Builder b = PipelineConfig.builder(plugins).environment(env);
        if (pipeline.get("source") != null) {
            Part p = Part.of("source", pipeline.get("source"));
            b.source(p.type(), p.options());
        }
        for (Part p : list(pipeline, "filters")) {
            b.filter(p.type(), p.options());
        }
        for (Part p : list(pipeline, "stages")) {
            b.stage(p.type(), p.options());
        }
        if (pipeline.get("sink") != null) {
            Part p = Part.of("sink", pipeline.get("sink"));
            Map<String, Object> options = p.options();
            if (deferred && "send".equals(p.type())) {
                options.put("host", "coordinator");
                options.put("port", 1);
            }
            b.sink(p.type(), options);
        }
        return b.build();
    }

    /**
     * Refuses a job whose channel's frame size and slots need more buffer memory than this JVM
     * may use or this host has ({@link BufferBudget}), as the tools refuse their options: the
     * coordinator checked them against its own host only, and an agent's host may be smaller.
     * Values the pipeline's own validation refuses (out of range, not a size) are left to it.
     *
     * @param agent whether the job came from a coordinator on another host (the message's words)
     * @throws UsageException naming the sizes, what they need and what there is (exit 64)
     */
    static void checkBudget(Map<String, Object> pipeline, boolean agent) {
        Map<?, ?> source = pipeline.get("source") instanceof Map<?, ?> m ? m : Map.of();
        Map<?, ?> sink = pipeline.get("sink") instanceof Map<?, ?> m ? m : Map.of();
        boolean receives = "receive".equals(source.get("type"));
        boolean sends = "send".equals(sink.get("type"));
        if (!receives && !sends) {
            return;
        }
        Map<?, ?> channel = sends ? sink : source;
        long frame;
        int slots;
        try {
            frame = size(channel.get("frame-size"), 1L << 20);
            slots = (int) size(channel.get("slots"), 16);
        } catch (IllegalArgumentException e) {
            return;
        }
        if (frame < TransportOptions.MIN_FRAME_SIZE || frame > TransportOptions.MAX_FRAME_SIZE
                || slots < 2 || slots > TransportOptions.MAX_SLOTS) {
            return;
        }
        ChannelOptions o = ChannelOptions.defaults().withFrameSize((int) frame).withReceiveSlots(slots).withSendSlots(slots);
        int stages = pipeline.get("stages") instanceof List<?> l ? l.size() : 0;
        BufferBudget.check(o, stages, sends, agent);
    }

    /** A size as a job gives it: a number, or text as pipeline files write it (1M); {@code absent} when not given. */
    private static long size(Object value, long absent) {
        if (value == null) {
            return absent;
        }
        if (value instanceof Number n) {
            return n.longValue();
        }
        return ValueType.parseSize(value.toString());
    }

    /** The plugins listed under {@code key} (filters, stages); none when absent. */
    private static List<Part> list(Map<String, Object> pipeline, String key) {
        Object value = pipeline.get(key);
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof List<?> list)) {
            throw new IllegalArgumentException("job: " + key + " must be a list");
        }
        List<Part> parts = new java.util.ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            parts.add(Part.of(key + "[" + i + "]", list.get(i)));
        }
        return parts;
    }

    private static long parse(String n) {
        try {
            return Long.parseLong(n);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** One plugin of the job: its type and its other keys. */
    private record Part(String type, Map<String, Object> options) {

        static Part of(String where, Object value) {
            if (!(value instanceof Map<?, ?> m)) {
                throw new IllegalArgumentException("job: " + where + " must be an object");
            }
            Map<String, Object> options = new java.util.LinkedHashMap<>();
            String type = null;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                String key = String.valueOf(e.getKey());
                if (key.equals("type")) {
                    if (!(e.getValue() instanceof String t)) {
                        throw new IllegalArgumentException("job: " + where + ".type must be a string");
                    }
                    type = t;
                } else if (e.getValue() instanceof Map<?, ?>) {
                    throw new IllegalArgumentException("job: " + where + "." + key + " must not be an object");
                } else {
                    options.put(key, e.getValue());
                }
            }
            if (type == null) {
                throw new IllegalArgumentException("job: " + where + ".type is missing");
            }
            return new Part(type, options);
        }
    }
}
