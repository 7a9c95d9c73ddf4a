package io.rdmaflux.pipeline.plugin;

import io.rdmaflux.codec.CodecSpec;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.pipeline.Pipeline;
import io.rdmaflux.pipeline.config.ConfigError;
import io.rdmaflux.pipeline.config.InvalidOptionException;
import io.rdmaflux.pipeline.config.ListType;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.config.ValueType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Checks a raw pipeline against the plugins' descriptions (source, filters, stages, sink): known types, known keys, required
 * keys, values of the right types, the plugins' own checks, and keyed stages only before a
 * sink that has sessions. Every problem is reported, each once; a value already wrong is not
 * checked further.
 */
final class Validator {

    private final String file;
    private final PluginRegistry registry;
    private final List<ConfigError> errors;
    private final Map<String, String> environment;

    private Validator(String file, PluginRegistry registry, List<ConfigError> errors, Map<String, String> environment) {
        this.file = file;
        this.registry = registry;
        this.errors = errors;
        this.environment = environment;
    }

    /** The validated pipeline, or null when there were errors (added to {@code errors}). */
    static PipelineConfig validate(RawPipeline raw, String file, PluginRegistry registry, List<ConfigError> errors) {
        return validate(raw, file, registry, errors, System.getenv());
    }

    /** {@link #validate(RawPipeline, String, PluginRegistry, List)} for a run in {@code environment}. */
    static PipelineConfig validate(RawPipeline raw, String file, PluginRegistry registry, List<ConfigError> errors,
                                   Map<String, String> environment) {
        return new Validator(file, registry, errors, environment).validate(raw);
    }

    private PipelineConfig validate(RawPipeline raw) {
        int before = errors.size();
        PipelineConfig.Part<SourcePlugin> source = raw.source() == null ? null
                : part(raw.source(), "source", registry::source, registry.sources());
        List<PipelineConfig.Part<FilterPlugin>> filters = new ArrayList<>();
        for (RawPlugin f : raw.filters()) {
            PipelineConfig.Part<FilterPlugin> p = part(f, "filter", registry::filter, registry.filters());
            if (p != null) {
                filters.add(p);
            }
        }
        List<PipelineConfig.Part<StagePlugin>> stages = new ArrayList<>();
        List<CodecSpec> specs = new ArrayList<>();
        List<RawValue> stageTypes = new ArrayList<>();
        for (RawPlugin s : raw.stages()) {
            PipelineConfig.Part<StagePlugin> p = part(s, "stage", registry::stage, registry.stages());
            CodecSpec spec = p == null ? null : spec(s, p);
            if (spec != null) {
                stages.add(p);
                specs.add(spec);
                stageTypes.add(s.type());
            }
        }
        PipelineConfig.Part<SinkPlugin> sink = raw.sink() == null ? null
                : part(raw.sink(), "sink", registry::sink, registry.sinks());
        // Only the sink's type matters here: the check holds even when its options are wrong.
        Optional<SinkPlugin> sinkType = raw.sink() == null || raw.sink().type() == null || raw.sink().type().text() == null
                ? Optional.empty() : registry.sink(raw.sink().type().text());
        if (sinkType.isPresent() && !sinkType.get().providesSessionKey()) {
            for (int i = 0; i < specs.size(); i++) {
                if (registry.codecs().resolve(specs.get(i)).requiresKey()) {
                    RawValue type = stageTypes.get(i);
                    error(type.line(), type.key(), Pipeline.sessionKeyRequired(specs.get(i).name(),
                            "a '" + sinkType.get().name() + "' sink"));
                }
            }
        }
        if (errors.size() > before || source == null || sink == null) {
            return null;
        }
        return new PipelineConfig(file, registry, source, filters, stages, sink);
    }

    /** The stage's codec spec, checked by the codec; null (after reporting) when refused. */
    private CodecSpec spec(RawPlugin raw, PipelineConfig.Part<StagePlugin> part) {
        try {
            CodecSpec spec = part.plugin().spec(part.values());
            registry.codecs().resolve(spec);
            return spec;
        } catch (RdmaFluxException | IllegalArgumentException e) {
            error(raw.type().line(), raw.type().key(), e.getMessage());
            return null;
        }
    }

    private <P extends Plugin> PipelineConfig.Part<P> part(RawPlugin raw, String kind, Function<String, Optional<P>> lookup,
                                                          Collection<P> known) {
        List<String> names = known.stream().map(Plugin::name).toList();
        RawValue type = raw.type();
        if (type == null) {
            error(raw.line(), raw.path() + ".type", "missing (" + kind + " types: " + String.join(", ", names) + ")");
            return null;
        }
        if (type.text() == null) {
            error(type.line(), type.key(), "expected a " + kind + " type, got " + type.got(false) + " (" + kind
                    + " types: " + String.join(", ", names) + ")");
            return null;
        }
        Optional<P> found = lookup.apply(type.text());
        if (found.isEmpty()) {
            String guess = DidYouMean.closest(type.text(), names);
            error(type.line(), type.key(), "unknown " + kind + " type '" + type.text() + "'"
                    + (guess != null ? ", did you mean '" + guess + "'?" : "")
                    + " (" + kind + " types: " + String.join(", ", names) + ")"
                    + (registry.skipped().isEmpty() ? "" : "; plugin jars skipped: " + String.join(", ", registry.skipped())));
            return null;
        }
        P plugin = found.get();
        OptionValues values = values(raw, kind, plugin);
        if (values == null) {
            return null;
        }
        try {
            plugin.validate(values);
        } catch (InvalidOptionException e) {
            RawValue at = e.option() == null ? null : raw.options().get(e.option());
            String key = e.option() == null ? raw.path() : raw.path() + "." + e.option();
            error(at != null ? at.line() : raw.line(), key, e.getMessage());
            return null;
        } catch (RuntimeException e) {
            // A plugin from a jar may fail in its own way: still one line, never a trace.
            error(raw.line(), raw.path(), kind + " '" + plugin.name() + "' refused its options: " + e);
            return null;
        }
        return new PipelineConfig.Part<>(plugin, values);
    }

    /** Each option parsed by its type; null (after reporting every problem) when one is wrong. */
    private OptionValues values(RawPlugin raw, String kind, Plugin plugin) {
        Map<String, OptionSpec<?>> specs = new LinkedHashMap<>();
        plugin.options().forEach(o -> specs.put(o.name(), o));
        Map<String, Object> given = new LinkedHashMap<>();
        boolean ok = true;
        for (Map.Entry<String, RawValue> e : raw.options().entrySet()) {
            OptionSpec<?> spec = specs.get(e.getKey());
            RawValue v = e.getValue();
            if (spec == null) {
                String guess = DidYouMean.closest(e.getKey(), specs.keySet());
                String owner = kind + " '" + plugin.name() + "'";
                error(v.line(), v.key(), "unknown key for " + owner + (guess != null ? ", did you mean '" + guess + "'?"
                        : specs.isEmpty() ? " (it has no options)" : " (its keys: " + String.join(", ", specs.keySet()) + ")"));
                ok = false;
                continue;
            }
            Object parsed = parse(spec, v);
            if (parsed == null) {
                ok = false;
            } else {
                given.put(spec.name(), parsed);
            }
        }
        for (OptionSpec<?> spec : specs.values()) {
            if (spec.isRequired() && !raw.options().containsKey(spec.name())) {
                error(raw.line(), raw.path() + "." + spec.name(), "missing (required by " + kind + " '" + plugin.name() + "')");
                ok = false;
            }
        }
        return ok ? OptionValues.of(plugin.options(), given, environment) : null;
    }

    private Object parse(OptionSpec<?> spec, RawValue v) {
        if (spec.type() instanceof ListType<?> list) {
            if (v.items() == null) {
                return refuse(spec, list, v);
            }
            List<Object> out = new ArrayList<>();
            for (RawValue item : v.items()) {
                Object p = item.text() == null ? null : parse(list.element(), item.text());
                if (p == null) {
                    return refuse(spec, list.element(), item);
                }
                out.add(p);
            }
            return List.copyOf(out);
        }
        Object p = v.text() == null ? null : parse(spec.type(), v.text());
        return p != null ? p : refuse(spec, spec.type(), v);
    }

    private Object parse(ValueType<?> type, String text) {
        try {
            return type.parse(text, environment);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private Object refuse(OptionSpec<?> spec, ValueType<?> type, RawValue v) {
        error(v.line(), v.key(), "expected " + type.description() + ", got " + v.got(spec.isSecret()));
        return null;
    }

    private void error(int line, String key, String message) {
        errors.add(new ConfigError(file, line, key, message));
    }
}
