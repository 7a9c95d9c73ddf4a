package io.rdmaflux.pipeline.builtin;

import io.rdmaflux.connector.ConnectorException;
import io.rdmaflux.connector.ConnectorException.Reason;
import io.rdmaflux.connector.IoErrors;
import io.rdmaflux.connector.tree.TreeSink;
import io.rdmaflux.connector.tree.TreeSinkOptions;
import io.rdmaflux.pipeline.PipelineSink;
import io.rdmaflux.pipeline.TreeCopySink;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.config.ValueType;
import io.rdmaflux.pipeline.plugin.PluginContext;
import io.rdmaflux.pipeline.plugin.SinkPlugin;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/** Sink {@code tree}: recreates a tree stream under a destination. */
public final class TreeSinkPlugin implements SinkPlugin {

    static final OptionSpec<Path> PATH = OptionSpec.required("path", ValueType.path(),
            "The destination: created as the copy of the tree's root, or merged into when it is a directory; "
                + "a device or FIFO there is written through by a tree of one file, never replaced.");
    static final OptionSpec<String> NAME = OptionSpec.optional("name", ValueType.string(), null,
            "When path is an existing directory, make path/NAME the copy instead (as cp -r SRC DIR makes DIR/SRC).");
    static final OptionSpec<Boolean> DIRECTORY = OptionSpec.optional("directory", ValueType.bool(), false,
            "With name: path is a directory (rdcp's DST/): made when missing, as rsync does, and path/NAME the copy.");
    static final OptionSpec<Boolean> DELETE = OptionSpec.optional("delete", ValueType.bool(), false,
            "Remove what the destination's copied directories hold and the tree does not; never after any failure.");
    static final OptionSpec<Boolean> DRY_RUN = OptionSpec.optional("dry-run", ValueType.bool(), false,
            "Read and check the whole tree and report what would be written and deleted; change nothing.");
    static final OptionSpec<Boolean> FSYNC = OptionSpec.optional("fsync", ValueType.bool(), false,
            "Sync each file and directory to disk before reporting success.");

    @Override
    public String name() {
        return "tree";
    }

    @Override
    public String description() {
        return "Writes a tree stream: each file verified before it gets its mode and time (under a temporary name, renamed, where the directory existed); failed files reported by name.";
    }

    @Override
    public List<OptionSpec<?>> options() {
        return List.of(PATH, NAME, DIRECTORY, DELETE, DRY_RUN, FSYNC);
    }

    @Override
    public void validate(OptionValues values) {
        checkName(values);
    }

    @Override
    public PipelineSink create(OptionValues values, PluginContext context) {
        TreeSinkOptions options = TreeSinkOptions.defaults()
                .withIo(context.sinkOptions().withFsync(values.get(FSYNC)))
                .withDelete(values.get(DELETE))
                .withDryRun(values.get(DRY_RUN));
        Path path = values.get(PATH);
        boolean declared = values.get(NAME) != null && values.get(DIRECTORY);
        if (values.get(DRY_RUN)) {
            Path dest = destination(values).toAbsolutePath().normalize();
            Path parent = dest.getParent();
            // Nothing is made in a dry run; only rdcp's DST/ would be, so any other parent must exist.
            if (!declared && parent != null && !Files.isDirectory(parent)) {
                throw ConnectorException.sink(Reason.NOT_FOUND, "cannot write " + dest + ": directory " + parent
                        + " does not exist", null);
            }
        } else if (declared && !Files.exists(path)) {
            try {
                Files.createDirectory(path);   // only the last component, as rsync; a missing parent fails below
            } catch (NoSuchFileException e) {
                // TreeSink.of names the missing directory.
            } catch (IOException e) {
                Reason r = IoErrors.classify(e);
                throw ConnectorException.sink(r, "cannot create directory " + path + ": " + IoErrors.phrase(r, e), e);
            }
        }
        return TreeCopySink.of(TreeSink.of(destination(values), options));
    }

    /** {@code name} is one plain path component. */
    static void checkName(OptionValues values) {
        String name = values.get(NAME);
        if (name != null && (name.contains("/") || name.equals(".") || name.equals("..") || name.indexOf('\0') >= 0)) {
            throw OptionValues.invalid(NAME, "must be a single name, not a path: '" + name + "'");
        }
    }

    /**
     * path, or path/NAME when NAME is given and path is a directory: an existing one (looked at
     * now, on this host), or one the directory option declares.
     */
    static Path destination(OptionValues values) {
        Path path = values.get(PATH);
        String name = values.get(NAME);
        return name != null && (values.get(DIRECTORY) || Files.isDirectory(path)) ? path.resolve(name) : path;
    }
}
