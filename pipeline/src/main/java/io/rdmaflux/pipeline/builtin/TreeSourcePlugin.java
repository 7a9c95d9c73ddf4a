package io.rdmaflux.pipeline.builtin;

import io.rdmaflux.connector.ConnectorException;
import io.rdmaflux.connector.SourceOptions;
import io.rdmaflux.connector.tree.TreeSource;
import io.rdmaflux.connector.tree.TreeSourceOptions;
import io.rdmaflux.pipeline.PipelineSource;
import io.rdmaflux.pipeline.RateLimit;
import io.rdmaflux.pipeline.ReceiveMany;
import io.rdmaflux.pipeline.ReceiveSource;
import io.rdmaflux.pipeline.TreeCopySource;
import io.rdmaflux.pipeline.config.OptionSpec;
import io.rdmaflux.pipeline.config.OptionValues;
import io.rdmaflux.pipeline.config.ValueType;
import io.rdmaflux.pipeline.plugin.PluginContext;
import io.rdmaflux.pipeline.plugin.SourcePlugin;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** Source {@code tree}: a directory tree (or several) as one stream, optionally synced against the destination. */
public final class TreeSourcePlugin implements SourcePlugin {

    static final OptionSpec<Path> PATH = OptionSpec.optional("path", ValueType.path(), null,
            "The tree to send: a directory, a file or a symbolic link (followed there). Give path or paths.");
    static final OptionSpec<Boolean> DIRECTORY = OptionSpec.optional("directory", ValueType.bool(), false,
            "path must be a directory (rdcp's SRC/, whose contents are copied): anything else fails, as cp refuses file/.");
    static final OptionSpec<List<Path>> PATHS = OptionSpec.optional("paths", ValueType.list(ValueType.path()), null,
            "Several trees at once, each under its own name, as cp -r a b DIR/ copies them into DIR.");
    static final OptionSpec<Boolean> GLOB = OptionSpec.optional("glob", ValueType.bool(), false,
            "Expand wildcards (*, ? and [...]) in the last component of each path on this host, as scp's remote "
                + "shell does; the matches are sent as paths are. No match is an error.");
    static final OptionSpec<Boolean> RECURSIVE = OptionSpec.optional("recursive", ValueType.bool(), true,
            "Copy directories; false refuses a path that is a directory (rdcp without -r).");
    /** How a directory refused for want of recursive ends its message: the remedy, in this option's terms. */
    public static final String RECURSIVE_HINT = " (set recursive: true to copy directories)";
    static final OptionSpec<Boolean> FOLLOW_LINKS = OptionSpec.optional("follow-links", ValueType.bool(), false,
            "Copy what symbolic links inside the tree point to, instead of the links.");
    static final OptionSpec<Boolean> HARD_LINKS = OptionSpec.optional("hard-links", ValueType.bool(), true,
            "Send a file with several names in the tree once, its other names as hard links.");
    static final OptionSpec<Boolean> SPARSE = OptionSpec.optional("sparse", ValueType.bool(), true,
            "Send runs of zeros in large files as holes, which the receiving end does not write.");
    static final OptionSpec<Integer> PARALLEL_FILES = OptionSpec.optional("parallel-files", ValueType.integer(0, 64), 4,
            "Large files read at once, their data interleaved in the stream; 0 reads one file at a time.");
    static final OptionSpec<Long> LARGE_FILE_SIZE = OptionSpec.optional("large-file-size",
            ValueType.size(0, Long.MAX_VALUE), 4L << 20, "Files at least this large are read in parallel; smaller "
                    + "ones are packed together in walk order.");
    static final OptionSpec<Long> BWLIMIT = OptionSpec.optional("bwlimit", ValueType.size(0, Long.MAX_VALUE), 0L,
            "Send at most this many bytes per second (e.g. 10M); 0 for no limit.");
    static final OptionSpec<Boolean> COUNT = OptionSpec.optional("count", ValueType.bool(), false,
            "Walk the tree first to count its files and bytes, announced to the receiving end (progress with an ETA).");
    static final OptionSpec<String> SYNC = OptionSpec.optional("sync", ValueType.oneOf("off", "size-and-mtime",
            "checksum"), "off", "Send only what the destination lacks: receive its listing (from a tree-listing "
                    + "source) first, then send no data for files it has with the same size and mtime, or the same "
                    + "content (checksum).");
    static final OptionSpec<Integer> LISTING_PORT = OptionSpec.optional("listing-port", ValueType.integer(0, 65535), 0,
            "With sync: the port the listing arrives on; 0 picks one, reported as the pipeline's listening address.");
    static final OptionSpec<String> BIND = OptionSpec.optional("bind", ValueType.string(), "0.0.0.0",
            "With sync: the local address the listing's receiver listens on.");
    static final OptionSpec<Duration> LISTING_TIMEOUT = OptionSpec.optional("listing-timeout",
            ValueType.duration(), Duration.ZERO,
            "With sync: give up when no listing arrives within this time (0: wait as long as it takes).");

    static final OptionSpec<Integer> LISTINGS = OptionSpec.optional("listings", ValueType.integer(1, 1024), 1,
            "With sync: how many listings arrive on the listing port, one per destination (rdcp --sync --to); a "
                    + "file then goes without data only when every destination has it as it is here.");

    @Override
    public String name() {
        return "tree";
    }

    @Override
    public String description() {
        return "Reads a directory tree (files, directories, links, modes, times) as one stream, checked file by file.";
    }

    @Override
    public List<OptionSpec<?>> options() {
        return List.of(PATH, PATHS, DIRECTORY, GLOB, RECURSIVE, FOLLOW_LINKS, HARD_LINKS, SPARSE, PARALLEL_FILES, LARGE_FILE_SIZE, BWLIMIT, COUNT, SYNC,
                LISTING_PORT, BIND, LISTING_TIMEOUT, LISTINGS, ChannelSettings.KEY_FILE, ChannelSettings.KEY_ENV, ChannelSettings.KEY,
                ChannelSettings.TRANSPORT);
    }

    @Override
    public void validate(OptionValues values) {
        if (values.isSet(PATH) == values.isSet(PATHS)) {
            throw OptionValues.invalid(values.isSet(PATH) ? PATHS : PATH, "give either path or paths");
        }
        if (values.isSet(PATHS) && values.get(PATHS).isEmpty()) {
            throw OptionValues.invalid(PATHS, "must name at least one path");
        }
        if (!values.get(SYNC).equals("off")) {
            ChannelSettings.checkKey(values);   // the listing's channel needs one
        }
    }

    @Override
    public PipelineSource create(OptionValues values, PluginContext context) {
        TreeSourceOptions options = TreeSourceOptions.defaults()
                .withIo(io(context))
                .withFollowSymlinks(values.get(FOLLOW_LINKS))
                .withHardLinks(values.get(HARD_LINKS))
                .withSparse(values.get(SPARSE))
                .withParallelFiles(values.get(PARALLEL_FILES))
                .withLargeFileSize(values.get(LARGE_FILE_SIZE));
        List<Path> paths = values.isSet(PATH) ? List.of(values.get(PATH)) : values.get(PATHS);
        boolean glob = values.get(GLOB) && values.isSet(PATHS);
        if (glob) {
            paths = Wildcards.expand(paths);
        }
        if (values.isSet(PATH) && values.get(DIRECTORY) && Files.exists(values.get(PATH))
                && !Files.isDirectory(values.get(PATH))) {
            throw ConnectorException.source(ConnectorException.Reason.NOT_A_FILE, "cannot read " + values.get(PATH)
                    + "/: not a directory", null);
        }
        if (!values.get(RECURSIVE)) {
            for (Path p : paths) {
                if (Files.isDirectory(p)) {
                    throw ConnectorException.source(ConnectorException.Reason.NOT_A_FILE, p
                            + " is a directory" + RECURSIVE_HINT, null);
                }
            }
        }
        TreeSource tree = values.isSet(PATH) ? TreeSource.of(values.get(PATH), options)
                : TreeSource.container(paths, options);
        TreeCopySource source = TreeCopySource.of(tree).countFirst(values.get(COUNT));
        if (values.get(BWLIMIT) > 0) {
            source = source.limit(RateLimit.of(values.get(BWLIMIT)));
        }
        String sync = values.get(SYNC);
        if (sync.equals("off")) {
            return source;
        }
        TreeSourceOptions.Compare compare = sync.equals("checksum") ? TreeSourceOptions.Compare.CHECKSUM
                : TreeSourceOptions.Compare.SIZE_AND_MTIME;
        if (values.get(LISTINGS) > 1) {
            return source.syncAgainst(ReceiveMany.of(new ReceiveMany.ReceiveSettings(values.get(BIND),
                    values.get(LISTING_PORT), ChannelSettings.key(values), ChannelSettings.transport(values),
                    values.get(LISTING_TIMEOUT)), values.get(LISTINGS)), compare);
        }
        ReceiveSource listing = ReceiveSource.create(values.get(LISTING_PORT), ChannelSettings.key(values))
                .bind(values.get(BIND))
                .timeout(values.get(LISTING_TIMEOUT))
                .transport(ChannelSettings.transport(values));
        return source.syncAgainst(listing, compare);
    }

    /** The context's reads, at least as large as a tree stream's records need (larger chunks are cut downstream). */
    static SourceOptions io(PluginContext context) {
        return context.sourceOptions().withChunkSize(Math.max(context.chunkSize(), TreeSourceOptions.MIN_CHUNK_SIZE));
    }
}
