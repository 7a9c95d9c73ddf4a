package io.rdmaflux.connector.tree;

import static io.rdmaflux.connector.tree.TreeFormat.malformed;

import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.text.RemoteText;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Reads a tree stream that arrives cut at arbitrary places: each call to {@link #feed} takes
 * whatever bytes came and calls the handler for every record completed, passing file contents
 * through as slices of the input (no copy). Checks the layout strictly (lengths, known types,
 * strict UTF-8), and an entry's fields with {@link TreeRules#entry} (path syntax, kinds, flags),
 * and fails with a CODEC {@link RdmaFluxException} (bad data) that says where; what the records mean
 * (ids, sizes, parents) is the handler's to check, with {@link TreeRules} too.
 */
final class TreeParser {

    /** What the parser found, record by record. */
    interface Handler {

        void header(int flags) throws IOException;

        void entry(int id, TreeEntry entry, int flags) throws IOException;

        /**
         * Right after {@link #entry}: file {@code id}'s contents start at {@code resume}'s offset
         * (flag F_RESUME). Only a tree's writer takes them; anything else refuses the stream.
         */
        default void resumed(int id, TreeFormat.Resume resume) throws IOException {
            throw malformed("a resumed file where none may be");
        }

        /** Content for file {@code id}: the bytes between {@code data}'s position and limit. */
        void data(int id, ByteBuffer data) throws IOException;

        void hole(int id, long count) throws IOException;

        /** {@code failure} is null when the file was read completely. */
        void fileEnd(int id, String failure, long length, int crc) throws IOException;

        void notice(boolean error, String path, String message) throws IOException;

        void end(long entries, long bytes, long failures) throws IOException;
    }

    private enum State { HEADER, RECORD_HEADER, BODY, DATA_ID, DATA, DONE }

    private final Handler handler;
    private final ByteBuffer scratch = ByteBuffer.allocate(TreeFormat.MAX_CONTROL);
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
    private State state = State.HEADER;
    private int type;
    private long remaining;
    private int dataId;
    private long offset;
    private int version;

    TreeParser(Handler handler) {
        this.handler = handler;
        scratch.limit(TreeFormat.HEADER_SIZE);
    }

    /** Parses all of {@code in} (its position ends at its limit). */
    void feed(ByteBuffer in) throws IOException {
        while (in.hasRemaining()) {
            if (state == State.DONE) {
                throw malformed("data after the END record (at byte " + offset + ")");
            }
            if (state == State.DATA) {
                int n = (int) Math.min(remaining, in.remaining());
                int limit = in.limit();
                int end = in.position() + n;
                in.limit(end);
                handler.data(dataId, in);
                in.limit(limit).position(end);
                offset += n;
                remaining -= n;
                if (remaining == 0) {
                    expectRecord();
                }
                continue;
            }
            // Gather a fixed-size piece into scratch.
            int n = Math.min(scratch.remaining(), in.remaining());
            int limit = in.limit();
            in.limit(in.position() + n);
            scratch.put(in);
            in.limit(limit);
            offset += n;
            if (!scratch.hasRemaining()) {
                scratch.flip();
                complete();
            }
        }
    }

    /** The stream ended: fails unless it ended right after its END record. */
    void finish() throws RdmaFluxException {
        if (state != State.DONE) {
            throw malformed("the stream ended without its END record after " + offset
                    + " bytes (truncated)");
        }
    }

    private void complete() throws IOException {
        switch (state) {
            case HEADER -> {
                int magic = scratch.getInt();
                int version = scratch.getShort() & 0xffff;
                int flags = scratch.getShort() & 0xffff;
                if (magic != TreeFormat.MAGIC) {
                    throw malformed("not a tree stream (bad magic number)");
                }
                if (version != TreeFormat.VERSION && version != TreeFormat.VERSION_RESUME) {
                    throw malformed("tree format version " + version + " is not supported (this side reads "
                            + TreeFormat.VERSION + " and " + TreeFormat.VERSION_RESUME + ")");
                }
                this.version = version;
                if ((flags & ~TreeFormat.FLAG_LISTING) != 0) {
                    throw malformed("unknown header flags 0x" + Integer.toHexString(flags));
                }
                handler.header(flags);
                expectRecord();
            }
            case RECORD_HEADER -> {
                type = scratch.get() & 0xff;
                long length = scratch.getInt() & 0xffffffffL;
                startBody(length);
            }
            case DATA_ID -> {
                dataId = scratch.getInt();
                state = State.DATA;
                if (remaining == 0) {
                    expectRecord();
                }
            }
            case BODY -> {
                body();
                if (type == TreeFormat.END) {
                    state = State.DONE;
                } else {
                    expectRecord();
                }
            }
            default -> throw new IllegalStateException(state.toString());
        }
    }

    private void startBody(long length) throws RdmaFluxException {
        long at = offset - TreeFormat.RECORD_HEADER;
        if (type == TreeFormat.DATA) {
            if (length < 4) {
                throw malformed("DATA record of " + length + " bytes at byte " + at);
            }
            remaining = length - 4;
            gather(State.DATA_ID, 4);
            return;
        }
        int min = switch (type) {
            case TreeFormat.ENTRY -> TreeFormat.ENTRY_FIXED;
            case TreeFormat.HOLE -> 12;
            case TreeFormat.FILE_END -> TreeFormat.FILE_END_FIXED;
            case TreeFormat.NOTICE -> TreeFormat.NOTICE_FIXED;
            case TreeFormat.END -> TreeFormat.END_BODY;
            default -> throw malformed("unknown record type " + type + " at byte " + at);
        };
        if (length < min || length > TreeFormat.MAX_CONTROL
                || (type == TreeFormat.HOLE || type == TreeFormat.END) && length != min) {
            throw malformed("record type " + type + " with a body of " + length + " bytes at byte " + at);
        }
        gather(State.BODY, (int) length);
    }

    private void expectRecord() {
        gather(State.RECORD_HEADER, TreeFormat.RECORD_HEADER);
    }

    private void gather(State next, int length) {
        state = next;
        scratch.clear().limit(length);
    }

    private void body() throws IOException {
        ByteBuffer b = scratch;
        switch (type) {
            case TreeFormat.ENTRY -> entry(b);
            case TreeFormat.HOLE -> {
                int id = b.getInt();
                long count = b.getLong();
                if (count <= 0) {
                    throw malformed("HOLE of " + count + " bytes for file " + id);
                }
                handler.hole(id, count);
            }
            case TreeFormat.FILE_END -> {
                int id = b.getInt();
                int status = b.get() & 0xff;
                long length = b.getLong();
                int crc = b.getInt();
                // Only ever shown: made safe where it enters (io.rdmaflux.text.RemoteText).
                String reason = RemoteText.sanitize(string(b, TreeFormat.MAX_TEXT, "reason"), TreeFormat.MAX_TEXT);
                exhausted(b);
                if (status != TreeFormat.STATUS_OK && status != TreeFormat.STATUS_FAILED) {
                    throw malformed("FILE_END with unknown status " + status);
                }
                if (status == TreeFormat.STATUS_FAILED && reason.isEmpty()) {
                    reason = "failed on the sending side";
                }
                handler.fileEnd(id, status == TreeFormat.STATUS_OK ? null : reason, length, crc);
            }
            case TreeFormat.NOTICE -> {
                int severity = b.get() & 0xff;
                // A notice is only ever shown: its words are made safe where they enter.
                String path = RemoteText.sanitize(string(b, TreeFormat.MAX_PATH, "path"), TreeFormat.MAX_PATH);
                String message = RemoteText.sanitize(string(b, TreeFormat.MAX_TEXT, "message"), TreeFormat.MAX_TEXT);
                exhausted(b);
                if (severity != TreeFormat.SEVERITY_WARNING && severity != TreeFormat.SEVERITY_ERROR) {
                    throw malformed("NOTICE with unknown severity " + severity);
                }
                handler.notice(severity == TreeFormat.SEVERITY_ERROR, path, message);
            }
            case TreeFormat.END -> handler.end(b.getLong(), b.getLong(), b.getInt() & 0xffffffffL);
            default -> throw new IllegalStateException("type " + type);
        }
    }

    private void entry(ByteBuffer b) throws IOException {
        int id = b.getInt();
        int kindCode = b.get() & 0xff;
        int flags = b.get() & 0xff;
        int mode = b.getShort() & 0xffff;
        long mtime = b.getLong();
        long size = b.getLong();
        String path = string(b, TreeFormat.MAX_PATH, "path");
        String link = string(b, TreeFormat.MAX_LINK, "link");
        byte[] sum = null;
        if ((flags & TreeFormat.F_CHECKSUM) != 0) {
            if (b.remaining() < 1 || (b.get() & 0xff) != TreeFormat.CHECKSUM_SHA256
                    || b.remaining() < TreeFormat.SHA256_LENGTH) {
                throw malformed("entry '" + path + "' has an unknown or short checksum");
            }
            sum = new byte[TreeFormat.SHA256_LENGTH];
            b.get(sum);
        }
        TreeFormat.Resume resume = null;
        if ((flags & TreeFormat.F_RESUME) != 0) {
            if (version < TreeFormat.VERSION_RESUME || b.remaining() < TreeFormat.RESUME_FIELDS) {
                throw malformed("entry '" + path + "' resumes a file, which a version " + version
                        + " stream may not, or its offset and checksum are short");
            }
            long at = b.getLong();
            byte[] prefix = new byte[TreeFormat.SHA256_LENGTH];
            b.get(prefix);
            resume = new TreeFormat.Resume(at, prefix);
        }
        exhausted(b);
        // What the fields may say is the stream's rules'.
        TreeEntry entry = TreeRules.entry(id, kindCode, flags, mode, mtime, size, path, link, sum);
        if (resume != null && (entry.kind() != TreeEntry.Kind.FILE || (flags & TreeFormat.F_DATA) == 0
                || resume.offset() < 0 || resume.offset() > size)) {
            throw malformed("entry '" + path + "' resumes at byte " + resume.offset()
                    + ", which only a file with contents of at least that size may");
        }
        handler.entry(id, entry, flags);
        if (resume != null) {
            handler.resumed(id, resume);
        }
    }

    private String string(ByteBuffer b, int max, String what) throws RdmaFluxException {
        if (b.remaining() < 2) {
            throw malformed("a record ends inside its " + what);
        }
        int length = b.getShort() & 0xffff;
        if (length > max || length > b.remaining()) {
            throw malformed("a " + what + " of " + length + " bytes does not fit its record");
        }
        int limit = b.limit();
        b.limit(b.position() + length);
        try {
            CharBuffer chars = utf8.reset().decode(b);
            return chars.toString();
        } catch (CharacterCodingException e) {
            throw malformed("a " + what + " is not valid UTF-8");
        } finally {
            b.limit(limit);
        }
    }

    private static void exhausted(ByteBuffer b) throws RdmaFluxException {
        if (b.hasRemaining()) {
            throw malformed("a record has " + b.remaining() + " bytes more than its fields");
        }
    }
}
