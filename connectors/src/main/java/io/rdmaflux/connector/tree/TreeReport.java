package io.rdmaflux.connector.tree;

import io.rdmaflux.connector.SinkResult;
import java.util.List;

/**
 * What a {@link TreeSink} did with a tree stream that arrived whole.
 *
 * @param location         the destination directory (or file, for a tree of one file)
 * @param files            regular files written
 * @param directories      directories in the tree (created or already there)
 * @param symlinks         symbolic links made
 * @param hardLinks        hard links made
 * @param unchanged        files kept as they were because the sender found them current (sync)
 * @param bytes            content bytes written
 * @param deleted          destination entries removed because the source does not have them
 *                         ({@link TreeSinkOptions#delete()}); a directory counts once
 * @param failureCount     entries that failed, on either side
 * @param failures         the first of them ({@link TreeSinkOptions#maxReported()}), in order
 * @param warnings         things skipped or worth knowing, as {@code "path: message"}; the first
 *                         {@link TreeSinkOptions#maxReported()} of them
 * @param warningCount     all the warnings, listed or not
 * @param deletionSkipped  whether deletion was asked for but not done, because of failures
 */
public record TreeReport(String location, long files, long directories, long symlinks, long hardLinks,
                         long unchanged, long bytes, long deleted, long failureCount, List<TreeFailure> failures,
                         List<String> warnings, long warningCount, boolean deletionSkipped) {

    public TreeReport {
        failures = List.copyOf(failures);
        warnings = List.copyOf(warnings);
    }

    /** Whether every entry arrived: rdcp exits 0 only then (23, "partial transfer", otherwise). */
    public boolean complete() {
        return failureCount == 0;
    }

    /** As a sink's result: the bytes, the location, and the failures as its lines. */
    public SinkResult asSinkResult() {
        return new SinkResult(bytes, location, failureLines());
    }

    /** The warnings not listed in {@link #warnings()}, as one line ({@code "... and N more warnings"}), or null. */
    public String warningsNotListed() {
        long more = warningCount - warnings.size();
        return more > 0 ? "... and " + more + " more warning" + (more == 1 ? "" : "s") : null;
    }

    /** The failures as {@code "path: reason"} lines, with a last line counting those not listed. */
    public List<String> failureLines() {
        List<String> lines = new java.util.ArrayList<>(failures.size() + 1);
        for (TreeFailure f : failures) {
            lines.add(f.toString());
        }
        if (failureCount > failures.size()) {
            lines.add("... and " + (failureCount - failures.size()) + " more");
        }
        return lines;
    }
}
