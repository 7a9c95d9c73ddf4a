package io.rdmaflux.connector.tree;

import io.rdmaflux.connector.ConnectorException;
import io.rdmaflux.connector.WriteTarget;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.text.Plural;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The engine of {@link TreeSink}: applies a tree stream's records to the destination, one call
 * at a time on the sink's write loop. It coordinates: each record is checked by
 * {@link TreeRules} first, then carried out by the {@link TreeMaterializer} (directories, kept
 * files, links), an {@link IncomingFile} (contents and holes) and the {@link SmallFileWriters};
 * at the end {@link TreeDeletion} and the directories' modes and times.
 *
 * <p><b>Hostile senders.</b> Every entry's path is checked (relative, no {@code ..}, {@code .}
 * or empty components, no NUL). Every entry's parent must be a directory that this stream
 * declared earlier and that this sink made sure, with a {@code NOFOLLOW_LINKS} check when it
 * was declared, is a real directory (it created it, or found one); and no later entry may take
 * a declared directory's path. So no entry can be reached through a symbolic link, whether the
 * stream made it or it was there: the stream cannot name a path below a link, and it cannot
 * turn a declared directory into one. In a directory this sink created itself, files and
 * symbolic links are created under their own name ({@code O_EXCL}: there is nothing to
 * replace, and no link is followed); elsewhere under a fresh temporary name ({@code O_EXCL})
 * renamed into place, which replaces a link rather than following it. Hard links may only name
 * files this stream wrote. Anything else that breaks the format's rules fails the whole stream
 * with a CODEC error (bad data) naming the entry. (The checks are made by path: a local user who can
 * write into the destination while it is being written is not part of this threat model.)
 *
 * <p>Failures that concern one entry (a file the sender could not read, a name this file system
 * refuses, a directory in the way) fail that entry only; a full disk fails the stream.
 *
 * <p><b>Writers.</b> A file of at most {@link #QUEUED_MAX} bytes is written by one of the
 * sink's writer threads ({@link TreeSinkOptions#writerThreads()}) while this thread parses on;
 * larger files are written here as their data arrives. An entry whose path a queued file
 * holds, a hard link, deletion and the directories' times wait for the writers first, so the
 * result is the one of writing every file in stream order.
 *
 * <p><b>Dry run.</b> Every record is read and checked as above; {@link TreeDryRun} counts and
 * reports each entry instead of making it, file contents are checked and dropped, and
 * deletion only names what it would remove.
 */
final class TreeWriter implements WriteTarget, TreeParser.Handler {

    /** The largest file a writer thread writes; larger ones are written as their data arrives. */
    static final int QUEUED_MAX = SmallFileWriters.QUEUED_MAX;
    /** The most small files one stream holds gathered or queued. */
    static final int QUEUED_FILES = SmallFileWriters.QUEUED_FILES;

    private final Path dest;
    private final TreeSinkOptions options;
    private final TreeParser parser = new TreeParser(this);
    private final TreeRules rules;
    private final TreeFiles files;
    private final TreeTally tally;
    private final SmallFileWriters writers;
    private final IncomingFile.Env env;
    private final TreeMaterializer materializer;
    private final Map<Integer, IncomingFile> open = new HashMap<>();
    /** In a dry run: what is done instead of writing; null otherwise. */
    private final TreeDryRun dry;
    /** In a dry run: the open files whose contents are only checked (read and dropped). */
    private final Set<Integer> dryFiles = new HashSet<>();

    TreeWriter(Path dest, TreeSinkOptions options) {
        this(dest, options, defaultMaxHeld());
    }

    /** @param maxHeld the most bytes this stream's own state may hold (see {@link TreeRules}) */
    TreeWriter(Path dest, TreeSinkOptions options, long maxHeld) {
        this.dest = dest;
        this.options = options;
        this.rules = TreeRules.tree(maxHeld, options.maxOpenFiles(), options.delete());
        this.files = new TreeFiles(dest, options.io().fsync());
        this.tally = new TreeTally(options.listener(), options.maxReported());
        this.writers = new SmallFileWriters(options.writerThreads(), files);
        this.env = new IncomingFile.Env(files, writers, tally, rules);
        this.materializer = new TreeMaterializer(env);
        this.dry = options.dryRun() ? new TreeDryRun(env) : null;
    }

    /** The default bound on what a stream's state holds: a quarter of the heap (48 MiB at -Xmx192m). */
    static long defaultMaxHeld() {
        return Runtime.getRuntime().maxMemory() / 4;
    }

    TreeReport report() {
        return tally.report(dest.toString());
    }

    // ---- WriteTarget: the sink's lifecycle -----------------------------------------------------

    @Override
    public void open() throws IOException {
        Path parent = dest.getParent();
        if (dry == null && parent != null && !Files.isDirectory(parent)) {
            throw new NoSuchFileException(parent.toString(), null, "no such directory");
        }
    }

    @Override
    public void write(ByteBuffer src) throws IOException {
        parser.feed(src);
        writers.drain();
    }

    @Override
    public String commit() throws IOException {
        parser.finish();
        writers.awaitAll();
        writers.stop();
        if (options.delete()) {
            if (tally.failureCount() == 0) {
                TreeDeletion.deleteExtraneous(dry != null ? dry.existingDirectories() : materializer.directories(),
                        rules, files, tally, dry != null);
            } else {
                tally.deletionSkipped = true;
            }
        }
        if (dry == null) {
            materializer.finishDirectories();
            materializer.warnSetIdDropped();
            files.unstage();   // the stream ended: what arrived takes its name, files that failed named
        }
        return dest.toString();
    }

    @Override
    public String abort() {
        int removed = 0;
        int kept = 0;
        String through = "";
        for (IncomingFile f : open.values()) {
            if (f.wroteThrough()) {
                through = "; what arrived was already written through to " + f.target + ", which keeps it";
            }
            if (f.keepPart()) {
                kept++;
            } else if (f.discard()) {
                removed++;
            }
        }
        open.clear();
        writers.stop();
        tally.files += writers.placedUnreported();
        materializer.removeEmptyCreatedDirectories();
        long done = tally.files + tally.hardLinks + tally.symlinks;
        String inPlace = done > 0 ? "; the " + Plural.count(done, "file or link", "files and links")
                + " completed before it " + (done == 1 ? "is" : "are") + " in place" : "";
        String parts = kept > 0 ? "; what arrived of " + Plural.count(kept, "large file") + (kept == 1 ? " is" : " are")
                + " kept (.rdflux-NAME.part) for a re-run with --sync to resume" : "";
        return (removed > 0 ? "partial files removed" : kept > 0 ? "no partial file left under its name"
                : "no partial file left") + parts + inPlace + through;
    }

    @Override
    public String describe() {
        return dest.toString();
    }

    // ---- records -------------------------------------------------------------------------------

    @Override
    public void header(int flags) throws IOException {
        rules.header(flags);
    }

    @Override
    public void entry(int id, TreeEntry e, int flags) throws IOException {
        String path = e.path();
        if (rules.entry(id, e, flags) == TreeRules.Verdict.SKIP) {
            skip(id, e, flags, "not written: its directory could not be created");
            return;
        }
        if (writers.holds(path)) {
            writers.awaitAll();   // this entry replaces a file a writer may still be placing
        }
        Path target;
        try {
            target = files.resolve(path);
        } catch (InvalidPathException x) {
            if (e.kind() == TreeEntry.Kind.DIRECTORY) {
                rules.directoryFailed(path);
            }
            skip(id, e, flags, "its name cannot be written in this system's file-name encoding ("
                    + System.getProperty("sun.jnu.encoding") + "); use a UTF-8 locale");
            return;
        }
        if (dry != null) {
            dryEntry(id, e, target, flags);
            return;
        }
        switch (e.kind()) {
            case DIRECTORY -> materializer.directory(e, target);
            case FILE -> {
                if ((flags & TreeFormat.F_DATA) != 0) {
                    file(id, e, target, flags);
                } else {
                    materializer.keep(e, target, flags);
                }
            }
            case SYMLINK -> materializer.symlink(e, target);
            case HARD_LINK -> materializer.hardLink(e, target);
        }
    }

    /** An entry of a dry run: reported, not made; a file's contents are read, checked and dropped. */
    private void dryEntry(int id, TreeEntry e, Path target, int flags) throws IOException {
        switch (e.kind()) {
            case DIRECTORY -> dry.directory(e, target);
            case FILE -> {
                if ((flags & TreeFormat.F_DATA) != 0) {
                    opened(id, new IncomingFile(env, e, null, flags, true, false));
                    dryFiles.add(id);
                } else {
                    dry.keep(e, flags);
                }
            }
            case SYMLINK -> dry.symlink(e);
            case HARD_LINK -> dry.hardLink(e);
        }
    }

    /** A file whose contents follow. */
    private void file(int id, TreeEntry e, Path target, int flags) throws IOException {
        String path = e.path();
        // A device or FIFO written through is not bounded by the file system it sits in.
        boolean through = path.isEmpty() && files.writtenThrough(target) != 0;
        String tooLarge = through ? null : materializer.tooLarge(e.size());
        if (tooLarge != null) {
            if (path.isEmpty()) {
                // The copy is that file: it fails as a whole, as a file it cannot write would.
                throw ConnectorException.sink(ConnectorException.Reason.NO_SPACE,
                        "cannot write " + dest + ": " + tooLarge, null);
            }
            skip(id, e, flags, "not written: " + tooLarge);
            return;
        }
        IncomingFile f = new IncomingFile(env, e, target, flags, false, materializer.fresh(path));
        opened(id, f);
        f.gather();
    }

    /** An entry that fails here before anything is written: its contents, if any, are read and dropped. */
    private void skip(int id, TreeEntry e, int flags, String reason) throws IOException {
        tally.failed(e.path(), reason);
        rules.linkTarget(e, flags, false);
        if ((flags & TreeFormat.F_DATA) != 0) {
            opened(id, new IncomingFile(env, e, null, flags, true, false));
        }
    }

    private void opened(int id, IncomingFile f) throws IOException {
        rules.opened(id, f.entry);
        open.put(id, f);
    }

    @Override
    public void resumed(int id, TreeFormat.Resume resume) throws IOException {
        IncomingFile f = open.get(id);
        if (f == null) {
            throw TreeFormat.malformed("a resumed file that is not open");
        }
        rules.resumed(id, resume.offset());
        f.resume(resume);
    }

    @Override
    public void data(int id, ByteBuffer data) throws IOException {
        contents(id, "DATA", data.remaining()).write(data);
    }

    @Override
    public void hole(int id, long count) throws IOException {
        contents(id, "HOLE", count).skip(count);
    }

    /** The open file {@code id}, which {@code n} more bytes of contents fit. */
    private IncomingFile contents(int id, String record, long n) throws IOException {
        RdmaFluxException refused = rules.contents(id, record, n);
        IncomingFile f = open.get(id);
        if (refused != null) {
            f.discard();
            throw refused;
        }
        return f;
    }

    @Override
    public void fileEnd(int id, String failure, long length, int crc) throws IOException {
        IncomingFile f = open.remove(id);
        boolean dryFile = dryFiles.remove(id);
        RdmaFluxException refused = rules.fileEnd(id, failure, length);
        TreeEntry e = f.entry;
        if (failure != null) {
            f.discard();
            rules.linkTarget(e, f.flags, false);
            if (!f.ignored || dryFile) {
                tally.failed(e.path(), f.kept(failure));
            }
            return;
        }
        if (refused != null) {
            f.discard();
            throw refused;
        }
        if (dryFile) {
            if (f.crc.value() != crc) {
                rules.linkTarget(e, f.flags, false);
                tally.failed(e.path(), "its CRC32C does not match: the data arrived damaged");
            } else {
                dry.fileArrived(e, f.flags, length);
            }
            return;
        }
        if (f.ignored) {
            return;   // reported when its entry came
        }
        if (f.localFailure != null) {
            f.discard();
            rules.linkTarget(e, f.flags, false);
            tally.failed(e.path(), f.kept(f.localFailure));
            return;
        }
        if (f.crc.value() != crc) {
            f.discard();
            rules.linkTarget(e, f.flags, false);
            tally.failed(e.path(), f.kept("its CRC32C does not match: the data arrived damaged"));
            return;
        }
        f.commit();
    }

    @Override
    public void notice(boolean error, String path, String message) {
        rules.notice(error);
        if (error) {
            tally.failed(path, message);
        } else {
            tally.warn(path, message);
        }
    }

    @Override
    public void end(long entries, long okBytes, long senderFailureCount) throws IOException {
        rules.end(entries, okBytes, senderFailureCount);
    }
}
