package io.rdmaflux.pipeline.plugin;

import io.rdmaflux.codec.CodecRegistry;
import io.rdmaflux.codec.CodecStage;
import io.rdmaflux.pipeline.config.ConfigError;
import io.rdmaflux.pipeline.config.ConfigException;
import io.rdmaflux.pipeline.config.Home;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.stream.Stream;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The sources, filters, sinks and stages a process knows: the built-in ones, those on the class path,
 * and those in the jars of a plugin directory, all found with {@link ServiceLoader}. The jars
 * of a directory share one class loader of their own whose parent is the tool's, so a plugin
 * sees the project's API but not another directory's classes, and cannot replace a built-in
 * class. Stages are the codec stages of the same class loader (see {@link StagePlugin}).
 *
 * <p>When two plugins of one kind have the same name, the first found wins (built-ins and the
 * class path come before plugin jars) and the other is ignored with a warning. A jar that cannot
 * be used is left out with a warning, and the others still serve.
 */
public final class PluginRegistry {

    /** The environment variable naming the plugin directory. */
    public static final String ENV = "RDFLUX_PLUGINS";

    private static final Logger log = Loggers.getLogger(PluginRegistry.class);

    private final Map<String, SourcePlugin> sources;
    private final Map<String, FilterPlugin> filters;
    private final Map<String, SinkPlugin> sinks;
    private final Map<String, StagePlugin> stages;
    private final CodecRegistry codecs;
    private final ClassLoader pluginLoader;
    private final List<String> skipped;

    private PluginRegistry(Map<String, SourcePlugin> sources, Map<String, FilterPlugin> filters,
                           Map<String, SinkPlugin> sinks, Map<String, StagePlugin> stages, CodecRegistry codecs,
                           ClassLoader pluginLoader, List<String> skipped) {
        this.sources = sources;
        this.filters = filters;
        this.sinks = sinks;
        this.stages = stages;
        this.codecs = codecs;
        this.pluginLoader = pluginLoader;
        this.skipped = skipped;
    }

    /** The plugins on this module's class path (built-ins, and any jar on the class path). */
    public static PluginRegistry builtins() {
        return load(PluginRegistry.class.getClassLoader(), null, List.of());
    }

    /**
     * The plugins on the class path and in the jars of {@code directory} (a missing directory
     * holds none). A jar that cannot be used (not a jar, a provider that cannot be loaded,
     * constructed or describe itself) is left out with a warning naming it; see {@link #skipped()}.
     *
     * @throws ConfigException (one error naming the directory) when the directory cannot be listed
     */
    public static PluginRegistry load(Path directory) {
        ClassLoader parent = PluginRegistry.class.getClassLoader();
        if (!Files.isDirectory(directory)) {
            return load(parent, directory, List.of());
        }
        List<Path> jars;
        try (Stream<Path> files = Files.list(directory)) {
            jars = files.filter(f -> f.getFileName().toString().endsWith(".jar")).sorted().toList();
        } catch (IOException e) {
            throw failure(directory.toString(), "cannot list the plugin directory: " + e.getMessage());
        }
        if (jars.isEmpty()) {
            return load(parent, directory, List.of());
        }
        PluginJars usable = PluginJars.check(jars, parent);
        List<String> skipped = new ArrayList<>();
        for (PluginJars.Skipped s : usable.skipped()) {
            String reason = s.reason().replace('\n', ' ');
            log.warn("plugin jar {} skipped: {}", s.jar(), reason);
            skipped.add(s.jar().getFileName() + " (" + reason + ")");
        }
        return load(usable.loader(), directory, skipped);
    }

    /**
     * The plugin directory when none is given: {@code $RDFLUX_PLUGINS} when set, else
     * {@code ~/.config/rdflux/plugins}.
     */
    public static Path defaultDirectory(Map<String, String> env) {
        String dir = env.get(ENV);
        if (dir != null && !dir.isEmpty()) {
            return Path.of(dir);
        }
        return Home.directory(env).resolve(".config/rdflux/plugins");
    }

    /** The plugins {@code loader} finds; {@code directory}, when not null, is the plugin directory it reads. */
    private static PluginRegistry load(ClassLoader loader, Path directory, List<String> skipped) {
        String where = directory == null ? "the class path" : directory.toString();
        ClassLoader pluginLoader = loader == PluginRegistry.class.getClassLoader() ? null : loader;
        try {
            Map<String, SourcePlugin> sources = byName(ServiceLoader.load(SourcePlugin.class, loader), "source");
            Map<String, FilterPlugin> filters = byName(ServiceLoader.load(FilterPlugin.class, loader), "filter");
            Map<String, SinkPlugin> sinks = byName(ServiceLoader.load(SinkPlugin.class, loader), "sink");
            Map<String, StagePlugin> described = byName(ServiceLoader.load(StagePlugin.class, loader), "stage");
            CodecRegistry codecs = CodecRegistry.load(loader);
            if (directory != null) {
                codecs = codecs.withUnknownHint(codecHint(directory));
            }
            Map<String, StagePlugin> stages = new LinkedHashMap<>();
            for (CodecStage stage : codecs.stages()) {
                StagePlugin p = described.remove(stage.name());
                stages.put(stage.name(), p != null ? p : new CodecStagePlugin(stage));
            }
            described.keySet().forEach(name -> log.warn("stage plugin '{}' ignored: no codec stage of that name "
                    + "is registered (META-INF/services/io.rdmaflux.codec.CodecStage)", name));
            return new PluginRegistry(sources, filters, sinks, stages, codecs, pluginLoader, List.copyOf(skipped));
        } catch (ServiceConfigurationError | LinkageError e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw failure(where, "cannot load a plugin: " + e.getMessage()
                    + (cause != e ? " (" + cause + ")" : ""));
        }
    }

    private static <P extends Plugin> Map<String, P> byName(ServiceLoader<P> loader, String kind) {
        Map<String, P> out = new LinkedHashMap<>();
        for (P p : loader) {
            P first = out.putIfAbsent(p.name(), p);
            if (first != null) {
                log.warn("{} plugin '{}' of {} ignored: {} has that name already", kind, p.name(), origin(p.getClass()),
                        origin(first.getClass()));
            }
        }
        return out;
    }

    private static ConfigException failure(String where, String message) {
        return new ConfigException(List.of(new ConfigError(where, 0, null, message.replace('\n', ' '))));
    }

    public Optional<SourcePlugin> source(String name) {
        return Optional.ofNullable(sources.get(name));
    }

    public Optional<FilterPlugin> filter(String name) {
        return Optional.ofNullable(filters.get(name));
    }

    public Optional<SinkPlugin> sink(String name) {
        return Optional.ofNullable(sinks.get(name));
    }

    public Optional<StagePlugin> stage(String name) {
        return Optional.ofNullable(stages.get(name));
    }

    public Collection<SourcePlugin> sources() {
        return sources.values();
    }

    public Collection<FilterPlugin> filters() {
        return filters.values();
    }

    public Collection<SinkPlugin> sinks() {
        return sinks.values();
    }

    public Collection<StagePlugin> stages() {
        return stages.values();
    }

    /** The codec stages, for resolving chains (those a receiver is announced, too). */
    public CodecRegistry codecs() {
        return codecs;
    }

    /**
     * The codec stages of the class path and of {@code directory}'s jars, as {@link #load}'s
     * {@link #codecs()}; without the directory, those of the class path alone, found without
     * scanning for the other kinds of plugin (a tool's start-up pays for none it does not use).
     */
    public static CodecRegistry codecs(Path directory) {
        return Files.isDirectory(directory) ? load(directory).codecs()
                : CodecRegistry.defaultRegistry().withUnknownHint(codecHint(directory));
    }

    /** The receiving end is where an unknown codec shows: it says where this side looked. */
    private static String codecHint(Path directory) {
        return "plugin codecs come from the jars in " + directory + " on this side (set with --plugins DIR or "
                + ENV + ")";
    }

    /**
     * The jars of the plugin directory that were left out, each as "NAME.jar (why)"; an unknown
     * type may have been in one of them.
     */
    public List<String> skipped() {
        return skipped;
    }

    /**
     * Where a plugin comes from: the jar's file name for a plugin directory's, otherwise null
     * (built in, or on the class path).
     */
    public String origin(Plugin plugin) {
        Class<?> c = plugin instanceof CodecStagePlugin a ? a.stage().getClass() : plugin.getClass();
        if (pluginLoader == null || c.getClassLoader() != pluginLoader) {
            return null;
        }
        return origin(c);
    }

    private static String origin(Class<?> c) {
        CodeSource cs = c.getProtectionDomain().getCodeSource();
        if (cs == null || cs.getLocation() == null) {
            return c.getName();
        }
        try {
            return Path.of(cs.getLocation().toURI()).getFileName().toString();
        } catch (Exception e) {
            return cs.getLocation().toString();
        }
    }
}
