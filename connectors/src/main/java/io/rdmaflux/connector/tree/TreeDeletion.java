package io.rdmaflux.connector.tree;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The tree sink's {@code --delete}: once the stream ended with no failure, removes what each
 * directory of the copy holds and the stream did not list in it (a file, a link but not what it
 * points to, a whole directory). What the stream listed is remembered by {@link TreeRules#listed}.
 * Each removal is told to the listener; in a dry run it is only told.
 */
final class TreeDeletion {

    private TreeDeletion() {
    }

    /** Removes what the directories in {@code directories} hold and the stream did not list; counts and fails in {@code tally}. */
    static void deleteExtraneous(List<TreeEntry> directories, TreeRules rules, TreeFiles files, TreeTally tally,
                                 boolean dryRun) throws IOException {
        Path dest = files.dest();
        for (TreeEntry d : directories) {
            Path dir = files.resolve(d.path());
            List<Path> extra = new ArrayList<>();
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
                for (Path p : ds) {
                    String name = p.getFileName().toString();
                    if (!rules.listed(d.path(), name) || !dir.resolve(name).equals(p)) {
                        extra.add(p);
                    }
                }
            } catch (IOException x) {
                tally.failed(d.path(), "cannot list it to delete extraneous entries: " + TreeFiles.phrase(x));
                continue;
            }
            extra.sort(null);   // the listener names them in a stable order
            for (Path p : extra) {
                try {
                    if (!dryRun) {
                        TreeFiles.deleteTree(p);
                    }
                    tally.deleted++;
                    tally.listener().onDeleted(dest.relativize(p).toString());
                } catch (IOException x) {
                    files.fatalIfFull(dest.relativize(p).toString(), x);
                    tally.failed(dest.relativize(p).toString(), "cannot delete it: " + TreeFiles.phrase(x));
                }
            }
        }
    }
}
