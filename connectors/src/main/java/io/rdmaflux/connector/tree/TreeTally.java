package io.rdmaflux.connector.tree;

import java.util.ArrayList;
import java.util.List;

/**
 * What a tree sink did, counted as it goes, and passed on to its {@link TreeListener}: the
 * counts of {@link TreeReport}, the first {@code maxReported} failures and warnings by name and
 * how many there were. Used on the sink's write-loop thread only (the small-file writers report
 * through it once drained).
 */
final class TreeTally {

    private final TreeListener listener;
    private final int maxReported;

    long files;
    long directories;
    long symlinks;
    long hardLinks;
    long unchanged;
    long bytes;
    long deleted;
    private long failureCount;
    private final List<TreeFailure> failures = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    private long warningCount;
    boolean deletionSkipped;

    TreeTally(TreeListener listener, int maxReported) {
        this.listener = listener;
        this.maxReported = maxReported;
    }

    TreeListener listener() {
        return listener;
    }

    long failureCount() {
        return failureCount;
    }

    /** A file put in place with {@code received} bytes (the listener is told by the caller). */
    void fileWritten(long received) {
        files++;
        bytes = TreeRules.add(bytes, received, "the bytes written");
    }

    void failed(String path, String reason) {
        failureCount++;
        TreeFailure f = new TreeFailure(path, reason);
        if (failures.size() < maxReported) {
            failures.add(f);
        }
        listener.onFailure(f);
    }

    /**
     * Lists and passes on the first {@code maxReported} warnings, and counts the rest: a sender
     * may send any number of them, and the listener's are printed (the report says how many more).
     */
    void warn(String path, String message) {
        warningCount++;
        if (warnings.size() < maxReported) {
            warnings.add((path.isEmpty() ? "." : path) + ": " + message);
            listener.onWarning(path, message);
        }
    }

    TreeReport report(String location) {
        return new TreeReport(location, files, directories, symlinks, hardLinks, unchanged, bytes, deleted,
                failureCount, failures, warnings, warningCount, deletionSkipped);
    }
}
