package io.rdmaflux.cli;

import io.rdmaflux.codec.CodecRegistry;
import io.rdmaflux.pipeline.config.ConfigError;
import io.rdmaflux.pipeline.config.ConfigException;
import io.rdmaflux.pipeline.plugin.PluginRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/** {@code --plugins DIR}, shared by {@code rdflux run} and {@code rdflux plugins}. */
final class Plugins {

    @Option(names = "--plugins", paramLabel = "DIR",
            description = "Load source, filter, stage and sink plugins from the jars in DIR. Default: $RDFLUX_PLUGINS, "
                + "else ~/.config/rdflux/plugins (when it exists).")
    Path directory;

    /**
     * The plugins: built in, on the class path, and in the directory.
     *
     * @throws UsageException   when --plugins or $RDFLUX_PLUGINS names a directory that does not exist, or a file
     * @throws ConfigException  when the plugin directory cannot be listed
     */
    PluginRegistry registry() {
        return PluginRegistry.load(directory());
    }

    /**
     * Only the codec stages, for a tool that takes no other plugins (rdrecv): without a plugin
     * directory it scans for nothing more at start-up than it did before plugins.
     *
     * @throws UsageException   as {@link #registry()}
     * @throws ConfigException  as {@link #registry()}
     */
    CodecRegistry codecs() {
        return PluginRegistry.codecs(directory());
    }

    /** The plugin directory: --plugins, else $RDFLUX_PLUGINS, else the default, which alone may be missing. */
    private Path directory() {
        String env = System.getenv(PluginRegistry.ENV);
        Path dir = directory != null ? directory : PluginRegistry.defaultDirectory(System.getenv());
        // Only the default may be missing: a directory the user named and mistyped is an error.
        if ((directory != null || env != null && !env.isEmpty()) && !Files.isDirectory(dir)) {
            String from = directory == null ? " ($" + PluginRegistry.ENV + ")" : "";
            throw new UsageException("plugin directory " + dir + from
                    + (Files.exists(dir) ? " is not a directory" : " does not exist"));
        }
        return dir;
    }

    /** The most errors printed: a file of 100,000 unknown keys is not worth 100,000 lines. */
    static final int MAX_ERRORS = 20;

    /**
     * Prints each configuration error as its own line (file:line: key: message), the first
     * {@value #MAX_ERRORS} of them and then how many more, and gives the exit code.
     */
    static int report(ConfigException e) {
        List<ConfigError> errors = e.errors();
        errors.stream().limit(MAX_ERRORS).forEach(Console.stderr()::println);
        if (errors.size() > MAX_ERRORS) {
            Console.error("... and " + (errors.size() - MAX_ERRORS) + " more problems");
        }
        return ExitCode.CONFIG;
    }
}
