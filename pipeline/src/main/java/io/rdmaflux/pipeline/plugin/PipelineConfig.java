package io.rdmaflux.pipeline.plugin;

import io.rdmaflux.codec.CodecChain;
import io.rdmaflux.codec.CodecSpec;
import io.rdmaflux.connector.Filter;
import io.rdmaflux.connector.StandardStreams;
import io.rdmaflux.pipeline.Pipeline;
import io.rdmaflux.pipeline.PipelineSink;
import io.rdmaflux.pipeline.PipelineSource;
import io.rdmaflux.pipeline.config.ConfigError;
import io.rdmaflux.pipeline.config.ConfigException;
import io.rdmaflux.pipeline.config.OptionValues;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CoderResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * A validated pipeline configuration: which plugin is the source, which the filters and the
 * stages, which the sink, and each one's checked options. Made from YAML ({@link #parse}, {@link #load}: the
 * {@code rdflux run} format) or in code ({@link #builder}); both are validated the same way,
 * so a coordinator that builds a pipeline for a remote host gets the same checks and messages
 * as a user's file. Nothing is opened until {@link #toPipeline()}'s pipeline runs.
 *
 * <pre>{@code
 * PluginRegistry plugins = PluginRegistry.load(PluginRegistry.defaultDirectory(System.getenv()));
 * PipelineConfig config = PipelineConfig.load(Path.of("pipeline.yaml"), plugins);  // ConfigException lists all errors
 * PipelineResult result = config.toPipeline().run().block();
 *
 * PipelineConfig sameInCode = PipelineConfig.builder(plugins)
 *         .source("file", Map.of("path", "/data/in.bin"))
 *         .filter("command", Map.of("command", "grep -v DEBUG"))
 *         .stage("zstd", Map.of("level", 3))
 *         .sink("send", Map.of("host", "backup", "port", 7691, "key-env", "RDFLUX_KEY"))
 *         .build();
 * }</pre>
 */
public final class PipelineConfig {

    /**
     * One configured plugin.
     *
     * @param plugin the plugin
     * @param values its checked options
     * @param <P>    source, filter, stage or sink plugin
     */
    public record Part<P extends Plugin>(P plugin, OptionValues values) {
    }

    /** The largest pipeline file read: a real one is a few hundred bytes. */
    public static final int MAX_FILE_BYTES = 1 << 20;

    private final String file;
    private final PluginRegistry registry;
    private final Part<SourcePlugin> source;
    private final List<Part<FilterPlugin>> filters;
    private final List<Part<StagePlugin>> stages;
    private final Part<SinkPlugin> sink;

    PipelineConfig(String file, PluginRegistry registry, Part<SourcePlugin> source, List<Part<FilterPlugin>> filters,
                   List<Part<StagePlugin>> stages, Part<SinkPlugin> sink) {
        this.file = file;
        this.registry = registry;
        this.source = source;
        this.filters = List.copyOf(filters);
        this.stages = List.copyOf(stages);
        this.sink = sink;
    }

    /**
     * Parses and validates a pipeline in YAML.
     *
     * @param yaml     the text
     * @param fileName the name errors give for it (as the user wrote the path)
     * @param env      the environment {@code ${VAR}} expands from
     * @throws ConfigException with every problem found, each naming the file, line and key
     */
    public static PipelineConfig parse(String yaml, String fileName, PluginRegistry registry, Map<String, String> env) {
        Objects.requireNonNull(fileName, "fileName");
        List<ConfigError> errors = new ArrayList<>();
        RawPipeline raw = YamlReader.read(yaml, fileName, env, errors);
        PipelineConfig config = raw == null ? null : Validator.validate(raw, fileName, registry, errors);
        if (!errors.isEmpty()) {
            throw new ConfigException(errors);
        }
        return config;
    }

    /**
     * Reads, parses and validates a pipeline file, expanding variables from this process's
     * environment. The file must be a regular file (a FIFO or a device would block or never
     * end) of at most {@value #MAX_FILE_BYTES} bytes.
     *
     * @throws IOException     when the file cannot be read, is not a regular file, or is not UTF-8
     * @throws ConfigException when it does not validate, or is too large to be a pipeline
     */
    public static PipelineConfig load(Path file, PluginRegistry registry) throws IOException {
        return parse(readUtf8(file), file.toString(), registry, System.getenv());
    }

    /** The file as text; one that is not UTF-8 fails with the offset of its first bad byte (as a person fixes it). */
    private static String readUtf8(Path named) throws IOException {
        // A served call's /dev/stdin is its caller's; messages name the user's path (the caller's).
        Path file = StandardStreams.resolve(named);
        // Checked before opening: opening a FIFO blocks until a writer comes.
        if (Files.exists(file) && !Files.isRegularFile(file)) {
            throw new IOException(Files.isDirectory(file) ? "is a directory" : "not a regular file");
        }
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_FILE_BYTES + 1);
        }
        if (bytes.length > MAX_FILE_BYTES) {
            throw new ConfigException(List.of(new ConfigError(named.toString(), 0, null,
                    "too large for a pipeline file (over " + (MAX_FILE_BYTES >> 20) + " MiB)")));
        }
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(in.remaining());   // never more chars than bytes
        CoderResult r = StandardCharsets.UTF_8.newDecoder().decode(in, out, true);
        if (r.isError()) {
            throw new IOException("not UTF-8 text: the byte at offset " + in.position() + " is not valid UTF-8");
        }
        return out.flip().toString();
    }

    /** A configuration built in code, with the same checks as a file's. */
    public static Builder builder(PluginRegistry registry) {
        return new Builder(registry);
    }

    public Part<SourcePlugin> source() {
        return source;
    }

    public List<Part<FilterPlugin>> filters() {
        return filters;
    }

    public List<Part<StagePlugin>> stages() {
        return stages;
    }

    public Part<SinkPlugin> sink() {
        return sink;
    }

    public PluginRegistry registry() {
        return registry;
    }

    /** The codec chain the stages make. */
    public CodecChain chain() {
        List<CodecSpec> specs = stages.stream().map(p -> p.plugin().spec(p.values())).toList();
        return CodecChain.of(specs, registry.codecs());
    }

    /**
     * The pipeline this configuration describes. Makes the sink, then the source and the
     * filters (which read chunks of the stages' block size); any may check the world and throw a
     * {@link io.rdmaflux.connector.ConnectorException} (a missing input file), but nothing is
     * opened until the pipeline runs.
     */
    public Pipeline toPipeline() {
        return toPipeline(null);
    }

    /**
     * {@link #toPipeline()} for a runner that learns later where a {@code send} sink connects
     * ({@code rdflux agent}), whatever its host and port say; see {@link PluginContext#sendTo()}.
     */
    public Pipeline toPipeline(Mono<InetSocketAddress> sendTo) {
        return toPipeline(sendTo, ProcessContext.inherited());
    }

    /**
     * {@link #toPipeline(Mono)} whose commands run in {@code process}'s environment, their
     * stderr going where it says (a warm agent's session; see {@link ProcessContext}).
     */
    public Pipeline toPipeline(Mono<InetSocketAddress> sendTo, ProcessContext process) {
        CodecChain chain = chain();
        PipelineSink s = sink.plugin().create(sink.values(), new PluginContext(Pipeline.blockSize(chain, 0),
                registry.codecs(), sendTo, process));
        PluginContext context = new PluginContext(Pipeline.blockSize(chain, s.frameSize()), registry.codecs(), sendTo,
                process);
        PipelineSource src = source.plugin().create(source.values(), context);
        Filter[] f = filters.stream().map(p -> p.plugin().create(p.values(), context)).toArray(Filter[]::new);
        return Pipeline.from(src).through(f).via(chain).to(s).codecs(registry.codecs());
    }

    /** "file -> command -> zstd -> send", for messages. */
    public String describe() {
        List<String> parts = new ArrayList<>();
        parts.add(source.plugin().name());
        filters.forEach(p -> parts.add(p.plugin().name()));
        stages.forEach(p -> parts.add(p.plugin().name()));
        parts.add(sink.plugin().name());
        return String.join(" -> ", parts);
    }

    /** The file this configuration was read from, as named, or null when built in code. */
    public String file() {
        return file;
    }

    /**
     * Builds a configuration in code. Option values are given as they would be written in a
     * file: text, numbers and booleans (their {@code toString()}), and lists of those for list
     * options. No variables are expanded.
     */
    public static final class Builder {

        private final PluginRegistry registry;
        private RawPlugin source;
        private final List<RawPlugin> filters = new ArrayList<>();
        private final List<RawPlugin> stages = new ArrayList<>();
        private RawPlugin sink;
        private Map<String, String> environment = System.getenv();

        private Builder(PluginRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
        }

        /**
         * The environment of the run (this process's unless set): where a path's ~ leads and
         * where a key's variable is read. A warm agent's session gives its own.
         */
        public Builder environment(Map<String, String> environment) {
            this.environment = Objects.requireNonNull(environment, "environment");
            return this;
        }

        public Builder source(String type, Map<String, ?> options) {
            source = raw("source", type, options);
            return this;
        }

        public Builder filter(String type, Map<String, ?> options) {
            filters.add(raw("filters[" + filters.size() + "]", type, options));
            return this;
        }

        public Builder stage(String type, Map<String, ?> options) {
            stages.add(raw("stages[" + stages.size() + "]", type, options));
            return this;
        }

        public Builder sink(String type, Map<String, ?> options) {
            sink = raw("sink", type, options);
            return this;
        }

        /** The validated configuration; throws {@link ConfigException} with every problem. */
        public PipelineConfig build() {
            List<ConfigError> errors = new ArrayList<>();
            if (source == null) {
                errors.add(new ConfigError(null, 0, "source", "missing (a pipeline needs a source and a sink)"));
            }
            if (sink == null) {
                errors.add(new ConfigError(null, 0, "sink", "missing (a pipeline needs a source and a sink)"));
            }
            PipelineConfig config = Validator.validate(new RawPipeline(0, source, filters, stages, sink), null, registry, errors,
                    environment);
            if (!errors.isEmpty()) {
                throw new ConfigException(errors);
            }
            return config;
        }

        private static RawPlugin raw(String path, String type, Map<String, ?> options) {
            Map<String, RawValue> values = new LinkedHashMap<>();
            options.forEach((k, v) -> values.put(k, value(path + "." + k, v)));
            return new RawPlugin(path, 0, RawValue.scalar(path + ".type", 0, Objects.requireNonNull(type, "type")), values);
        }

        private static RawValue value(String key, Object v) {
            if (v instanceof List<?> list) {
                List<RawValue> items = new ArrayList<>();
                for (int i = 0; i < list.size(); i++) {
                    items.add(value(key + "[" + i + "]", list.get(i)));
                }
                return RawValue.list(key, 0, items);
            }
            return RawValue.scalar(key, 0, v == null ? null : v.toString());
        }
    }
}
