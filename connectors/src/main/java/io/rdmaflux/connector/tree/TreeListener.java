package io.rdmaflux.connector.tree;

/**
 * Progress of a tree source or sink, entry by entry: for progress displays and logs. Called
 * synchronously on the I/O threads, possibly several at once; implementations must be
 * thread-safe and quick (count, do not print per file). All methods do nothing by default.
 */
public interface TreeListener {

    /** A listener that does nothing. */
    TreeListener NONE = new TreeListener() { };

    /**
     * A file, link or directory is done: sent completely (source) or in place at its final name
     * (sink). {@code bytes} is the file's content length, 0 for other kinds (and for an
     * unchanged file of a sync, which {@link #onKept} reports).
     */
    default void onDone(TreeEntry entry, long bytes) {
    }

    /**
     * An entry is done without being sent: the sender found the destination's copy current
     * (sync) and it was kept. By default {@link #onDone} with 0 bytes, as for any entry done.
     */
    default void onKept(TreeEntry entry) {
        onDone(entry, 0);
    }

    /**
     * A source passed {@code bytes} of a file that do not cross the wire: zeros that travel as a
     * hole (a few bytes in the stream, {@link TreeSourceOptions#sparse()}), or the prefix of a
     * resumed file that the destination kept. Done, for a display that counts a file's length
     * rather than the bytes on the wire.
     */
    default void onHole(long bytes) {
    }

    /**
     * With delete: {@code path} (relative to the destination) was removed because the source
     * does not have it, or in a dry run would be. Called once for a whole directory removed.
     */
    default void onDeleted(String path) {
    }

    /** An entry failed; the rest of the tree goes on. */
    default void onFailure(TreeFailure failure) {
    }

    /**
     * Something was skipped or is worth knowing (a special file left out, say). A tree sink
     * calls it for the first {@link TreeSinkOptions#maxReported()} warnings only; its report
     * counts them all ({@link TreeReport#warningsNotListed()}).
     */
    default void onWarning(String path, String message) {
    }
}
