package io.rdmaflux.codec;

import io.rdmaflux.buffer.Chunk;
import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Cuts a byte stream that arrives in arbitrary pieces back into the records a stage's encoder
 * wrote, each record starting with a fixed-size header that tells the record's total length.
 *
 * <p>Fast path: a chunk that holds exactly one whole record (the usual case, since the chain
 * sizes records to fit one channel frame) is passed on as it is, without copying. Otherwise
 * records are copied out into heap buffers, and the input chunk is released as soon as its
 * bytes have been consumed. A stream that ends inside a record fails with a CODEC error.
 */
public final class RecordAssembler {

    /** Largest record any built-in stage accepts (64 MiB); a larger length is corrupt input. */
    public static final int MAX_RECORD = 64 << 20;

    /** Reads a record header. */
    public interface Header {
        /** Length of the fixed-size header in bytes. */
        int length();

        /**
         * The total record length (header included), read from the header that starts at
         * {@code buffer}'s {@code offset} (absolute reads only). Throws a CODEC
         * {@link RdmaFluxException} for a malformed header.
         */
        int recordLength(ByteBuffer buffer, int offset);

        /**
         * A {@code length}-byte header whose u32 at {@code lengthAt} counts the bytes that follow
         * the header, from {@code min} to {@code max}; any other count is a CODEC error,
         * {@code "WHAT: corrupt stream (record length N)"}.
         */
        static Header withLengthAt(int length, int lengthAt, int min, int max, String what) {
            return new Header() {
                @Override
                public int length() {
                    return length;
                }

                @Override
                public int recordLength(ByteBuffer b, int offset) {
                    int n = b.getInt(offset + lengthAt);
                    if (n < min || n > max) {
                        throw new RdmaFluxException(ErrorCode.CODEC, what + ": corrupt stream (record length " + n + ")");
                    }
                    return length + n;
                }
            };
        }
    }

    private final Header header;
    private final String what;
    private byte[] partial;
    private int filled;
    private boolean headerOnly;

    private RecordAssembler(Header header, String what) {
        this.header = header;
        this.what = what;
    }

    /**
     * Reassembles records; {@code what} names the stage in error messages. Each output chunk is
     * exactly one record, header included. Prefetch is 2 input chunks.
     */
    public static Flux<Chunk> records(Flux<Chunk> in, Header header, String what) {
        return Flux.defer(() -> {
            RecordAssembler a = new RecordAssembler(header, what);
            return in.concatMapIterable(a::feed, 2)
                    .concatWith(Mono.defer(a::finish));
        }).doOnDiscard(Chunk.class, Chunk::releaseQuietly);
    }

    private int checkedLength(ByteBuffer b, int offset) {
        int n = header.recordLength(b, offset);
        if (n < header.length() || n > MAX_RECORD) {
            throw new RdmaFluxException(ErrorCode.CODEC, what + ": corrupt stream (record length " + n + " out of range)");
        }
        return n;
    }

    private List<Chunk> feed(Chunk chunk) {
        List<Chunk> out = new ArrayList<>(2);
        boolean passed = false;
        try {
            ByteBuffer b = chunk.buffer();
            int h = header.length();
            if (partial == null && b.remaining() >= h && checkedLength(b, b.position()) == b.remaining()) {
                out.add(chunk);
                passed = true;
                return out;
            }
            while (b.hasRemaining()) {
                if (partial == null) {
                    if (b.remaining() >= h) {
                        int total = checkedLength(b, b.position());
                        if (b.remaining() >= total) {
                            out.add(copy(b, total));
                            continue;
                        }
                        partial = new byte[total];
                        headerOnly = false;
                    } else {
                        partial = new byte[h];
                        headerOnly = true;
                    }
                    filled = 0;
                }
                int n = Math.min(partial.length - filled, b.remaining());
                b.get(partial, filled, n);
                filled += n;
                if (filled == partial.length) {
                    if (headerOnly) {
                        int total = checkedLength(ByteBuffer.wrap(partial), 0);
                        byte[] whole = new byte[total];
                        System.arraycopy(partial, 0, whole, 0, h);
                        partial = whole;
                        headerOnly = false;
                    }
                    if (filled == partial.length) {
                        out.add(Chunk.wrap(ByteBuffer.wrap(partial)));
                        partial = null;
                        filled = 0;
                    }
                }
            }
            return out;
        } catch (RuntimeException e) {
            for (Chunk c : out) {
                c.releaseQuietly();
            }
            throw e;
        } finally {
            if (!passed) {
                chunk.releaseQuietly();
            }
        }
    }

    private static Chunk copy(ByteBuffer b, int n) {
        byte[] a = new byte[n];
        b.get(a);
        return Chunk.wrap(ByteBuffer.wrap(a));
    }

    private Mono<Chunk> finish() {
        if (partial != null) {
            return Mono.error(new RdmaFluxException(ErrorCode.CODEC,
                    what + ": stream ends inside a record (" + filled + " of " + (headerOnly ? "header " : "")
                            + partial.length + " bytes arrived)"));
        }
        return Mono.empty();
    }
}
