package io.rdmaflux.pipeline.plugin;

import io.rdmaflux.pipeline.PipelineSource;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import java.util.List;

/**
 * Source plugins with one fault each, as third-party jars have them; loaded only through a
 * plugin directory the tests make (not in this module's services files).
 */
public final class BrokenPlugins {

    private BrokenPlugins() {
    }

    /** A well-behaved plugin the others spoil one method of. */
    public abstract static class Base implements SourcePlugin {
        @Override
        public String name() {
            return getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT);
        }

        @Override
        public String description() {
            return "Broken on purpose.";
        }

        @Override
        public List<OptionSpec<?>> options() {
            return List.of();
        }

        @Override
        public PipelineSource create(OptionValues values, PluginContext context) {
            throw new UnsupportedOperationException("never created");
        }
    }

    public static final class Throwing extends Base {
        public Throwing() {
            throw new IllegalStateException("no config");
        }
    }

    public static final class NullOptions extends Base {
        @Override
        public List<OptionSpec<?>> options() {
            return null;
        }
    }

    public static final class NullDescription extends Base {
        @Override
        public String description() {
            return null;
        }
    }

    public static final class ThrowingName extends Base {
        @Override
        public String name() {
            throw new UnsupportedOperationException("later");
        }
    }

    public static final class NoPublicConstructor extends Base {
        NoPublicConstructor() {
        }
    }

    /** Listed as a source plugin, but is none. */
    public static final class NotAPlugin {
    }
}
