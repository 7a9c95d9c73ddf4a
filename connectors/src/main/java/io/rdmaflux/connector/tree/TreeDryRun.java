package io.rdmaflux.connector.tree;

import io.rdmaflux.connector.ConnectorException;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * The tree sink's entries in a dry run ({@link TreeSinkOptions#dryRun()}): each is checked by
 * {@link TreeRules} as in a real run, counted and told to the listener as what would be
 * written, and nothing at the destination is touched. Only existing directories are looked at
 * (for {@code delete}, which lists what it would remove from them).
 */
final class TreeDryRun {

    private final IncomingFile.Env env;
    private final TreeTally tally;
    /** The copy's directories that exist at the destination: the only ones a deletion would look into. */
    private final List<TreeEntry> existing = new ArrayList<>();

    TreeDryRun(IncomingFile.Env env) {
        this.env = env;
        this.tally = env.tally();
    }

    /** The copy's directories that exist, in the stream's order. */
    List<TreeEntry> existingDirectories() {
        return existing;
    }

    /** A directory: looked at, not made. The root must not be something else, as in a real run. */
    void directory(TreeEntry e, Path target) throws IOException {
        String path = e.path();
        BasicFileAttributes a;
        try {
            a = TreeFiles.attributes(path.isEmpty() ? target : null, target);
        } catch (IOException x) {
            a = null;   // cannot be looked at: nothing in it would be deleted either
        }
        if (a != null && !a.isDirectory() && path.isEmpty()) {
            throw ConnectorException.sink(ConnectorException.Reason.NOT_A_FILE, "cannot write " + env.files().dest()
                    + ": it exists and is not a directory", null);
        }
        env.rules().directoryMade(path);
        if (path.isEmpty() && env.rules().container()) {
            return;
        }
        if (a != null && a.isDirectory()) {
            existing.add(e);
        }
        tally.directories++;
        tally.listener().onDone(e, 0);
    }

    /** A file the sender found current (sync): it would be kept. */
    void keep(TreeEntry e, int flags) {
        tally.unchanged++;
        env.rules().linkTarget(e, flags, true);
        tally.listener().onKept(e);
    }

    /** A file whose contents arrived whole and checked: it would be written. */
    void fileArrived(TreeEntry e, int flags, long length) {
        env.rules().linkTarget(e, flags, true);
        tally.fileWritten(length);
        tally.listener().onDone(e, length);
    }

    void symlink(TreeEntry e) {
        tally.symlinks++;
        tally.listener().onDone(e, 0);
    }

    void hardLink(TreeEntry e) {
        if (!env.rules().hardLinkTargetArrived(e)) {
            tally.failed(e.path(), "not linked: '" + e.link() + "', the file it is a name of, did not arrive");
            return;
        }
        tally.hardLinks++;
        tally.listener().onDone(e, 0);
    }
}
