package io.rdmaflux.codec;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.function.Supplier;

/**
 * The codec stages known to this process: those listed in
 * {@code META-INF/services/io.rdmaflux.codec.CodecStage} on the class path (the built-in zstd and
 * aes-256-gcm, and any of yours), plus any registered explicitly. They are found and made on
 * first use ({@link #resolve}, {@link #stages}), not before: a transfer without a codec loads
 * none of their classes (zstd's native binding, the AES-GCM engine), which is start-up time.
 */
public final class CodecRegistry {

    private static volatile CodecRegistry defaultRegistry;

    private final Lazy stages;
    private final String unknownHint;

    private CodecRegistry(Lazy stages, String unknownHint) {
        this.stages = stages;
        this.unknownHint = unknownHint;
    }

    /** The stages found with ServiceLoader through this class's class loader (loaded once). */
    public static CodecRegistry defaultRegistry() {
        CodecRegistry r = defaultRegistry;
        if (r == null) {
            synchronized (CodecRegistry.class) {
                r = defaultRegistry;
                if (r == null) {
                    r = load(CodecRegistry.class.getClassLoader());
                    defaultRegistry = r;
                }
            }
        }
        return r;
    }

    /** The stages found with ServiceLoader through {@code loader}. */
    public static CodecRegistry load(ClassLoader loader) {
        return new CodecRegistry(new Lazy(() -> {
            Map<String, CodecStage> m = new LinkedHashMap<>();
            for (CodecStage s : ServiceLoader.load(CodecStage.class, loader)) {
                m.putIfAbsent(s.name(), s);
            }
            return m;
        }), null);
    }

    /** A copy of this registry with one more stage (replacing one of the same name). */
    public CodecRegistry with(CodecStage stage) {
        Lazy these = stages;
        return new CodecRegistry(new Lazy(() -> {
            Map<String, CodecStage> m = new LinkedHashMap<>(these.get());
            m.put(stage.name(), stage);
            return m;
        }), unknownHint);
    }

    /**
     * A copy of this registry whose error for an unknown codec ends with {@code hint}: where this
     * process finds codecs, and how to add one (a plugin directory, say).
     */
    public CodecRegistry withUnknownHint(String hint) {
        return new CodecRegistry(stages, hint);
    }

    /** The stage for a spec; a CODEC error for an unknown name or an unsupported version. */
    public CodecStage resolve(CodecSpec spec) {
        CodecStage s = stages.get().get(spec.name());
        if (s == null) {
            throw new RdmaFluxException(ErrorCode.CODEC, "unknown codec '" + spec.name() + "' (this side knows: "
                    + String.join(", ", stages.get().keySet()) + ")" + (unknownHint == null ? "" : "; " + unknownHint));
        }
        if (!s.supportsVersion(spec.version())) {
            throw new RdmaFluxException(ErrorCode.CODEC, "codec '" + spec.name() + "' version " + spec.version()
                    + " is not supported (this side has version " + s.version() + ")");
        }
        s.validate(spec);
        return s;
    }

    /** The known stages, by name. */
    public Collection<CodecStage> stages() {
        return stages.get().values();
    }

    /** The stages by name, made once, on first use. */
    private static final class Lazy {
        private Supplier<Map<String, CodecStage>> make;
        private Map<String, CodecStage> made;

        Lazy(Supplier<Map<String, CodecStage>> make) {
            this.make = make;
        }

        synchronized Map<String, CodecStage> get() {
            if (made == null) {
                made = Collections.unmodifiableMap(new LinkedHashMap<>(make.get()));
                make = null;
            }
            return made;
        }
    }
}
