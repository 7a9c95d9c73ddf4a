package io.rdmaflux.connector.tree;

import io.rdmaflux.buffer.Chunk;

/**
 * What the packer and the lanes of one {@link TreeReader} hand their work to: the stream's
 * buffers and subscriber, its scheduler, and the tally that the END record carries.
 */
interface ReadOutlet {

    /** A pooled buffer, for a task holding a permit; its release gives the permit back. */
    Chunk lease();

    /** Sends a filled chunk downstream, or releases it when it is empty or the stream stopped. */
    void emit(Chunk c);

    /** Runs {@code task} on the reader's scheduler. */
    void schedule(Runnable task);

    /** Ends the stream with {@code t} (once) and stops every task. */
    void fail(Throwable t);

    /** Ends the stream: the END record has been emitted. */
    void complete();

    /** A file's FILE_END was written: OK when {@code why} is null, counted and reported. */
    void fileEnded(TreeEntry entry, long bytes, String why);

    /** An entry that failed without a read (an error notice, a file that would not open). */
    void failed(String path, String why);

    /** Bytes of files sent as OK so far. */
    long okBytes();

    /** Entries failed so far. */
    long failures();
}
