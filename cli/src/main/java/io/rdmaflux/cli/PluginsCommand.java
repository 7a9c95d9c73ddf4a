package io.rdmaflux.cli;

import io.rdmaflux.pipeline.config.ConfigException;
import io.rdmaflux.pipeline.plugin.PluginReference;
import io.rdmaflux.pipeline.plugin.PluginRegistry;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code rdflux plugins}: every source, filter, stage and sink, with its options. */
@Command(name = "plugins", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
        usageHelpAutoWidth = true,
        description = "List every source, filter, stage and sink a pipeline file can use, with its options: type, "
            + "default (or 'required') and what it does. Plugins from a plugin directory say which jar they come from.")
final class PluginsCommand implements Callable<Integer> {

    @Mixin
    Plugins plugins = new Plugins();

    @Option(names = "--markdown", description = "Print the reference as Markdown (the format of docs/user-guide.md).")
    boolean markdown;

    @Override
    public Integer call() {
        Console.configure("rdflux", false, false);
        PluginRegistry registry;
        try {
            registry = plugins.registry();
        } catch (ConfigException e) {
            return Plugins.report(e);
        }
        Console.stdout().print(markdown ? PluginReference.markdown(registry) : PluginReference.text(registry));
        Console.stdout().flush();
        return ExitCode.OK;
    }
}
