package io.rdmaflux.pipeline;

import io.rdmaflux.codec.CodecContext;
import io.rdmaflux.connector.SinkResult;
import io.rdmaflux.connector.tree.TreeEntry;
import io.rdmaflux.connector.tree.TreeListener;
import io.rdmaflux.connector.tree.TreeSink;
import io.rdmaflux.text.RemoteText;
import java.util.Objects;
import reactor.core.publisher.Mono;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * A {@link TreeSink} as the end of a pipeline: as {@link PipelineSink#of} makes it, and besides
 * it tells the pipeline's listener each file that is in place ({@link PipelineListener#onFile}),
 * for a progress line that counts files, and names each file and link written, kept or deleted
 * ({@link PipelineListener#onTreeEntry}), for a tool's {@code -v}. The files that failed are the result's
 * {@link SinkResult#failures()}; what was skipped (a special file the source left out), and a
 * deletion not done because of failures, is logged as a warning, which the tools print: the
 * first {@link io.rdmaflux.connector.tree.TreeSinkOptions#maxReported()} of them (the sink passes
 * on no more), then one line that counts the rest, since a sender may send any number.
 */
public final class TreeCopySink implements PipelineSink {

    private static final Logger log = Loggers.getLogger(TreeCopySink.class);
    /** A tree's paths are at most 4 KiB; a warning shows that much of one. */
    private static final int MAX_PATH_SHOWN = 4096;

    private final TreeSink sink;

    private TreeCopySink(TreeSink sink) {
        this.sink = sink;
    }

    public static TreeCopySink of(TreeSink sink) {
        return new TreeCopySink(Objects.requireNonNull(sink, "sink"));
    }

    @Override
    public Mono<SinkResult> write(Upstream upstream) {
        return Mono.defer(() -> {
            PipelineListener listener = upstream.listener();
            TreeListener own = sink.options().listener();
            // A tree of one file has the empty path: the user knows it by its name.
            String single = sink.dest().getFileName() == null ? "." : sink.dest().getFileName().toString();
            TreeListener files = new TreeListener() {
                @Override
                public void onDone(TreeEntry entry, long bytes) {
                    own.onDone(entry, bytes);
                    if (entry.kind() == TreeEntry.Kind.FILE) {
                        listener.onFile(bytes);
                    } else if (entry.kind() == TreeEntry.Kind.HARD_LINK) {
                        listener.onLink();
                    }
                    if (entry.kind() != TreeEntry.Kind.DIRECTORY) {
                        listener.onTreeEntry(entry.path().isEmpty() ? single : entry.path(),
                                PipelineListener.TreeChange.COPIED);
                    }
                }

                @Override
                public void onDeleted(String path) {
                    own.onDeleted(path);
                    listener.onTreeEntry(path, PipelineListener.TreeChange.DELETED);
                }

                @Override
                public void onKept(TreeEntry entry) {
                    own.onKept(entry);
                    if (entry.kind() == TreeEntry.Kind.FILE) {
                        listener.onFileKept();
                        listener.onTreeEntry(entry.path().isEmpty() ? single : entry.path(),
                                PipelineListener.TreeChange.UNCHANGED);
                    }
                }

                @Override
                public void onFailure(io.rdmaflux.connector.tree.TreeFailure failure) {
                    own.onFailure(failure);
                }

                @Override
                public void onWarning(String path, String message) {
                    // The path came from the stream (the sender's), so may the words: sanitized.
                    log.warn("{}: {}", path.isEmpty() ? "." : RemoteText.sanitize(path, MAX_PATH_SHOWN),
                            RemoteText.sanitize(message));
                    own.onWarning(path, message);
                }
            };
            return sink.withOptions(sink.options().withListener(files))
                    .writeTree(upstream.data(CodecContext.keyless()))
                    .map(r -> {
                        String more = r.warningsNotListed();
                        if (more != null) {
                            log.warn(more);
                        }
                        if (r.deletionSkipped()) {
                            // As rclone: a failure may hide a file the source has, so nothing goes.
                            log.warn("nothing deleted in {}: {} entr{} did not arrive, and deletion runs only after "
                                    + "a copy without failures", r.location(), r.failureCount(),
                                    r.failureCount() == 1 ? "y" : "ies");
                        }
                        return r.asSinkResult();
                    });
        });
    }

    @Override
    public String describe() {
        return sink.describe();
    }

    @Override
    public String toString() {
        return "TreeCopySink[" + sink.describe() + "]";
    }
}
