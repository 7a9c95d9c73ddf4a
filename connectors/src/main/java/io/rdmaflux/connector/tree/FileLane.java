package io.rdmaflux.connector.tree;

import io.rdmaflux.buffer.Chunk;
import java.nio.ByteBuffer;

/**
 * A large file read on a task of its own, one chunk per DATA record (after a HOLE when the
 * file has a run of zeros and the options say sparse). Up to {@code parallelFiles} lanes run
 * at once and their chunks interleave in the stream. Each chunk takes a permit; after each
 * chunk a lane lets a waiting task go first, so that permits are shared.
 */
final class FileLane implements Runnable {

    /** Room a lane keeps in front of its data for a HOLE record and the DATA header. */
    static final int HEAD = TreeFormat.HOLE_RECORD + TreeFormat.DATA_HEADER;
    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(64 * 1024).asReadOnlyBuffer();

    private final ReadOutlet outlet;
    private final ReadPermits permits;
    private final int id;
    final SourceFile opened;
    private final int payload;
    private final boolean sparse;
    private final TreeListener listener;

    /**
     * @param id      the file's id in the stream
     * @param payload most data bytes in one chunk
     * @param sparse  whether runs of zeros travel as holes
     * @param listener told of each hole ({@link TreeListener#onHole})
     */
    FileLane(ReadOutlet outlet, ReadPermits permits, int id, SourceFile opened, int payload, boolean sparse,
             TreeListener listener) {
        this.outlet = outlet;
        this.permits = permits;
        this.id = id;
        this.opened = opened;
        this.payload = payload;
        this.sparse = sparse;
        this.listener = listener;
    }

    /** The data bytes a lane puts in a chunk of {@code bufferSize} bytes: whole pages when they fit. */
    static int payload(int bufferSize) {
        int room = bufferSize - HEAD - TreeFormat.FILE_END_MAX;
        return room >= 4096 ? room & ~4095 : room;
    }

    @Override
    public void run() {
        try {
            for (;;) {
                ReadPermits.Grant p = permits.take(this);
                if (p != ReadPermits.Grant.GRANTED) {
                    if (p == ReadPermits.Grant.STOPPED) {
                        opened.close();
                    }
                    return;
                }
                Chunk c = outlet.lease();
                boolean last;
                try {
                    last = fill(c.buffer());
                } catch (Throwable t) {
                    c.release();
                    throw t;
                }
                outlet.emit(c);
                if (last) {
                    permits.laneEnded();
                    return;
                }
                if (permits.yieldTo(this)) {
                    return;
                }
            }
        } catch (Throwable t) {
            opened.close();
            outlet.fail(t);
        }
    }

    /** Reads the next piece into {@code b}; true when the file's FILE_END is in it. */
    private boolean fill(ByteBuffer b) {
        long hole = 0;
        int n = 0;
        while (!opened.done() && !permits.stopped()) {
            b.position(HEAD);
            n = opened.read(b, (int) Math.min(payload, opened.left()));
            if (n == 0 || !(sparse && zeros(b, HEAD, n))) {
                break;
            }
            hole += n;   // all zeros: travels as a hole; read on into the same buffer
            n = 0;
        }
        if (hole > 0) {
            listener.onHole(hole);
        }
        int start;
        int end;
        if (n > 0) {
            b.position(TreeFormat.HOLE_RECORD);
            TreeFormat.putDataHeader(b, id, n);
            end = HEAD + n;
            start = TreeFormat.HOLE_RECORD;
            if (hole > 0) {
                b.position(0);
                TreeFormat.putHole(b, id, hole);
                start = 0;
            }
        } else {
            b.position(0);
            if (hole > 0) {
                TreeFormat.putHole(b, id, hole);
            }
            start = 0;
            end = b.position();
        }
        boolean last = opened.done() || n == 0 && !permits.stopped();
        b.limit(b.capacity()).position(end);
        if (last) {
            String why = opened.end(b, id);
            outlet.fileEnded(opened.item.entry, opened.position(), why);
            end = b.position();
        }
        b.position(start).limit(end);
        return last;
    }

    /** Whether {@code n} bytes of {@code b} from {@code from} are all zero. */
    static boolean zeros(ByteBuffer b, int from, int n) {
        if (n < 8 || b.getLong(from) != 0) {
            return false;   // the usual case: data, seen at once
        }
        for (int off = 0; off < n; off += ZEROS.capacity()) {
            int len = Math.min(ZEROS.capacity(), n - off);
            if (b.slice(from + off, len).mismatch(ZEROS.slice(0, len)) != -1) {
                return false;
            }
        }
        return true;
    }
}
