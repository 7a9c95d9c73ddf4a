package io.rdmaflux.connector.tree;

import io.rdmaflux.connector.SourceOptions;
import java.util.Objects;

/**
 * How a {@link TreeSource} walks and reads. Immutable; each {@code withX} returns a copy.
 *
 * <p><b>Memory bound.</b> All reads of one subscription, small files packed together and large
 * files read in parallel alike, draw from {@code io}'s {@link SourceOptions#permits() permits}
 * of {@link SourceOptions#chunkSize() chunkSize} bytes, so a slow subscriber stalls the reads
 * instead of growing memory. Besides the buffers, the walk holds the names of one directory per
 * level of depth, and the paths of files with several hard links (packed: some 50 bytes and the
 * path's each), and a sync its baseline ({@link TreeListing}, packed and bounded in bytes).
 *
 * @param io             chunk size (at least 32 KiB; the codec block size when codecs run),
 *                       buffers, scheduler, pool
 * @param parallelFiles  how many large files are read at once, each on its own and interleaved
 *                       in the stream, alongside the small files; 0 reads everything in walk
 *                       order on one thread. Default 4; at most 64
 * @param largeFileSize  files of at least this many bytes are read in parallel; smaller ones are
 *                       packed into the stream in walk order. Default 4 MiB
 * @param followSymlinks whether symbolic links inside the tree are followed (copied as what they
 *                       point to); default false: links are carried as links
 * @param hardLinks      whether files with several names in the tree are sent once, the other
 *                       names as hard links; default true
 * @param sparse         whether runs of zeros in large files, one whole read long, travel as
 *                       holes that the sink does not write; default true
 * @param baseline       the destination's listing, for a sync: files it already has (by
 *                       {@code compare}) are listed but carry no data; null sends everything
 * @param compare        how a file is found current against the baseline
 * @param listener       progress, called on the reading threads
 */
public record TreeSourceOptions(SourceOptions io, int parallelFiles, long largeFileSize, boolean followSymlinks,
                                boolean hardLinks, boolean sparse, TreeListing baseline, Compare compare,
                                TreeListener listener) {

    /** Smallest chunk that holds the largest record of the format with room for data. */
    public static final int MIN_CHUNK_SIZE = 32 * 1024;

    /** How a sync decides that the destination's copy of a file is current. */
    public enum Compare {
        /** Same size and same modification time (rsync's quick check). */
        SIZE_AND_MTIME,
        /** Same size and same SHA-256 of the content (rsync's --checksum): reads both sides. */
        CHECKSUM
    }

    /** The defaults described above. */
    public static TreeSourceOptions defaults() {
        return new TreeSourceOptions(SourceOptions.defaults(), 4, 4L << 20, false, true, true, null,
                Compare.SIZE_AND_MTIME, TreeListener.NONE);
    }

    public TreeSourceOptions {
        Objects.requireNonNull(io, "io");
        Objects.requireNonNull(compare, "compare");
        Objects.requireNonNull(listener, "listener");
        if (io.chunkSize() < MIN_CHUNK_SIZE) {
            throw new IllegalArgumentException("a tree source needs chunks of at least " + MIN_CHUNK_SIZE
                    + " bytes, was " + io.chunkSize());
        }
        if (parallelFiles < 0 || parallelFiles > 64) {
            throw new IllegalArgumentException("parallelFiles must be between 0 and 64, was " + parallelFiles);
        }
        if (largeFileSize < 0) {
            throw new IllegalArgumentException("largeFileSize must not be negative");
        }
    }

    public TreeSourceOptions withIo(SourceOptions v) {
        return new TreeSourceOptions(v, parallelFiles, largeFileSize, followSymlinks, hardLinks, sparse, baseline,
                compare, listener);
    }

    public TreeSourceOptions withParallelFiles(int v) {
        return new TreeSourceOptions(io, v, largeFileSize, followSymlinks, hardLinks, sparse, baseline, compare,
                listener);
    }

    public TreeSourceOptions withLargeFileSize(long v) {
        return new TreeSourceOptions(io, parallelFiles, v, followSymlinks, hardLinks, sparse, baseline, compare,
                listener);
    }

    public TreeSourceOptions withFollowSymlinks(boolean v) {
        return new TreeSourceOptions(io, parallelFiles, largeFileSize, v, hardLinks, sparse, baseline, compare,
                listener);
    }

    public TreeSourceOptions withHardLinks(boolean v) {
        return new TreeSourceOptions(io, parallelFiles, largeFileSize, followSymlinks, v, sparse, baseline, compare,
                listener);
    }

    public TreeSourceOptions withSparse(boolean v) {
        return new TreeSourceOptions(io, parallelFiles, largeFileSize, followSymlinks, hardLinks, v, baseline,
                compare, listener);
    }

    /** A sync against the destination's listing (null: send everything). */
    public TreeSourceOptions withBaseline(TreeListing v, Compare how) {
        return new TreeSourceOptions(io, parallelFiles, largeFileSize, followSymlinks, hardLinks, sparse, v, how,
                listener);
    }

    public TreeSourceOptions withListener(TreeListener v) {
        return new TreeSourceOptions(io, parallelFiles, largeFileSize, followSymlinks, hardLinks, sparse, baseline,
                compare, v);
    }
}
