package io.rdmaflux.connector.tree;

import io.rdmaflux.buffer.BufferPool;
import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.connector.IoErrors;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.scheduler.Scheduler;

/**
 * The engine of {@link TreeSource}: one subscription's walk and reads, and the hub its tasks
 * hand their chunks to.
 *
 * <p>Two kinds of task run on the options' scheduler: the {@link TreePacker}, which walks the tree
 * and packs entries and small files into chunks in walk order, and a {@link FileLane} for each
 * large file, up to {@code parallelFiles} at once. Every chunk takes one of a fixed number of
 * permits ({@link ReadPermits}), returned when the subscriber releases the chunk. Cancel, error
 * and completion stop the permits, which reschedule every waiting task so that each closes its
 * own file. A file read to its end is checked against the walk ({@link FileChange}).
 */
final class TreeReader implements ReadOutlet {

    private final String what;
    private final TreeSourceOptions options;
    private final FluxSink<Chunk> out;
    private final BufferPool pool;
    private final Scheduler scheduler;
    private final ReadPermits permits;
    // Counted by the packer and by lanes as their files end, on the scheduler's threads at once
    // (up to parallelFiles lanes); read by the packer for END, whose counts the sink checks.
    private final AtomicLong okBytes = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();

    /** Package-private for tests of the counts; {@link #flux} makes one per subscription. */
    TreeReader(Path root, TreeSourceOptions options, FluxSink<Chunk> out) {
        this.what = "tree " + root;
        this.options = options;
        this.out = out;
        this.pool = options.io().pool() != null ? options.io().pool()
                : new BufferPool("tree source " + root, options.io().chunkSize(), options.io().buffers());
        this.scheduler = options.io().scheduler();
        this.permits = new ReadPermits(options.io().permits(), this::schedule);
    }

    /**
     * A cold Flux of the tree stream; each subscription walks afresh.
     *
     * @param root      the tree's root, or for a container (several roots) its description
     * @param container the roots of a container, or null for a tree of one root
     * @param listing   entries only, no contents (a {@link TreeListing})
     * @param checksums with {@code listing}: each file's SHA-256
     */
    static Flux<Chunk> flux(Path root, List<Path> container, TreeSourceOptions options, boolean listing,
                            boolean checksums) {
        return Flux.<Chunk>create(sink -> {
            TreeReader reader = new TreeReader(root, options, sink);
            TreePacker packer = new TreePacker(root, container, options, listing, checksums, reader,
                    reader.permits, FileLane.payload(reader.pool.bufferSize()));
            sink.onDispose(reader.permits::stop);
            reader.schedule(packer);
        }, FluxSink.OverflowStrategy.BUFFER)
                // Chunks queued in create's buffer at cancel are discarded: give them back.
                .doOnDiscard(Chunk.class, Chunk::releaseQuietly);
    }

    @Override
    public Chunk lease() {
        Chunk pooled;
        try {
            pooled = pool.acquire();
        } catch (RuntimeException e) {
            permits.giveBack();
            throw e;
        }
        return Chunk.of(pooled.buffer(), () -> {
            pooled.release();
            permits.giveBack();
        });
    }

    @Override
    public void emit(Chunk c) {
        if (!c.buffer().hasRemaining() || permits.stopped()) {
            c.release();
            return;
        }
        out.next(c);
    }

    @Override
    public void schedule(Runnable task) {
        try {
            scheduler.schedule(task);
        } catch (Throwable e) {
            if (!permits.stopped()) {
                fail(new IOException("could not schedule the read (" + e + ")", e));
            }
            // Stopped: run the task here so that it closes its file.
            task.run();
        }
    }

    @Override
    public void fail(Throwable t) {
        if (permits.stop()) {
            out.error(IoErrors.source(what, t));
        }
    }

    @Override
    public void complete() {
        out.complete();
    }

    @Override
    public void fileEnded(TreeEntry entry, long bytes, String why) {
        if (why == null) {
            okBytes.addAndGet(bytes);
            options.listener().onDone(entry, bytes);
        } else {
            failures.incrementAndGet();
            options.listener().onFailure(new TreeFailure(entry.path(), why));
        }
    }

    @Override
    public void failed(String path, String why) {
        failures.incrementAndGet();
        options.listener().onFailure(new TreeFailure(path, why));
    }

    @Override
    public long okBytes() {
        return okBytes.get();
    }

    @Override
    public long failures() {
        return failures.get();
    }
}
