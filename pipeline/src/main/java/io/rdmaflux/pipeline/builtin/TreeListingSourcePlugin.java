package io.rdmaflux.pipeline.builtin;

import io.rdmaflux.connector.tree.TreeListing;
import io.rdmaflux.pipeline.PipelineSource;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.config.ValueType;
import io.rdmaflux.pipeline.plugin.PluginContext;
import io.rdmaflux.pipeline.plugin.SourcePlugin;
import java.util.List;

/** Source {@code tree-listing}: what a destination tree holds, for a tree source's sync. */
public final class TreeListingSourcePlugin implements SourcePlugin {

    static final OptionSpec<Boolean> CHECKSUMS = OptionSpec.optional("checksums", ValueType.bool(), false,
            "Add each file's SHA-256 (reads every file), for a sync that compares content.");

    @Override
    public String name() {
        return "tree-listing";
    }

    @Override
    public String description() {
        return "Lists a destination tree (paths, kinds, modes, sizes, mtimes; no contents) for a tree source's sync; "
                + "a missing destination lists empty, and so does a device or FIFO.";
    }

    @Override
    public List<OptionSpec<?>> options() {
        return List.of(TreeSinkPlugin.PATH, TreeSinkPlugin.NAME, TreeSinkPlugin.DIRECTORY, CHECKSUMS);
    }

    @Override
    public void validate(OptionValues values) {
        TreeSinkPlugin.checkName(values);
    }

    @Override
    public PipelineSource create(OptionValues values, PluginContext context) {
        return PipelineSource.of(TreeListing.source(TreeSinkPlugin.destination(values), values.get(CHECKSUMS),
                TreeSourcePlugin.io(context)));
    }
}
