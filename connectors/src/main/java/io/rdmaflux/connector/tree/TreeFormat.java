package io.rdmaflux.connector.tree;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.text.RemoteText;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The tree stream's layout, versions 1 and 2 (2 adds resumed files): constants, record writers and the path rules. The
 * specification is {@code docs/tree-format.md}; every number here is written there.
 *
 * <p>All integers are big-endian. A stream is a header followed by records, each
 * {@code u8 type, u32 body length, body}. Writers here never split a record across chunks
 * (a reader must not rely on that: the channel cuts the stream anywhere).
 */
final class TreeFormat {

    /** "RDTR". */
    static final int MAGIC = 0x52445452;
    /** The version a stream without resumed files carries, which every reader reads. */
    static final int VERSION = 1;
    /** The version of a stream that may resume files ({@link #F_RESUME}): older readers refuse it by its number. */
    static final int VERSION_RESUME = 2;
    static final int HEADER_SIZE = 8;
    /** Header flag: a listing (entries only, no contents). */
    static final int FLAG_LISTING = 1;

    static final int ENTRY = 1;
    static final int DATA = 2;
    static final int HOLE = 3;
    static final int FILE_END = 4;
    static final int NOTICE = 5;
    static final int END = 6;

    static final int RECORD_HEADER = 5;
    static final int MAX_PATH = 4096;
    static final int MAX_COMPONENT = 255;
    static final int MAX_LINK = 4096;
    static final int MAX_TEXT = 1024;
    /** Largest body of any record but DATA. */
    static final int MAX_CONTROL = 16 * 1024;

    /** ENTRY flags. */
    static final int F_DATA = 1;
    static final int F_LINK_TARGET = 2;
    static final int F_CHECKSUM = 4;
    /** On the root only: a directory that holds the entries but is not itself part of the copy. */
    static final int F_CONTAINER = 8;
    /**
     * Version 2: the file's contents start at an offset; the receiver's part file holds what is
     * before it, which it checks against the SHA-256 that ends the body ({@code docs/tree-format.md}).
     */
    static final int F_RESUME = 16;
    static final int ENTRY_FLAGS = F_DATA | F_LINK_TARGET | F_CHECKSUM | F_CONTAINER | F_RESUME;
    /** What F_RESUME adds to an ENTRY body: the offset and the prefix's SHA-256. */
    static final int RESUME_FIELDS = 8 + 32;
    static final int CHECKSUM_SHA256 = 1;
    static final int SHA256_LENGTH = 32;

    static final int STATUS_OK = 0;
    static final int STATUS_FAILED = 1;
    static final int SEVERITY_WARNING = 1;
    static final int SEVERITY_ERROR = 2;

    /** ENTRY body without path, link and checksum. */
    static final int ENTRY_FIXED = 4 + 1 + 1 + 2 + 8 + 8 + 2 + 2;
    static final int DATA_HEADER = RECORD_HEADER + 4;
    static final int HOLE_RECORD = RECORD_HEADER + 4 + 8;
    static final int FILE_END_FIXED = 4 + 1 + 8 + 4 + 2;
    /** The largest FILE_END record, reason included. */
    static final int FILE_END_MAX = RECORD_HEADER + FILE_END_FIXED + MAX_TEXT;
    static final int NOTICE_FIXED = 1 + 2 + 2;
    static final int END_BODY = 8 + 8 + 4;
    static final int END_RECORD = RECORD_HEADER + END_BODY;

    private TreeFormat() {
    }

    static void putHeader(ByteBuffer b, int flags) {
        putHeader(b, flags, VERSION);
    }

    static void putHeader(ByteBuffer b, int flags, int version) {
        b.putInt(MAGIC).putShort((short) version).putShort((short) flags);
    }

    /** A file resumed at {@code offset}: the receiver's part file must hold these first bytes, of this SHA-256. */
    record Resume(long offset, byte[] prefixSha256) {
    }

    static byte[] utf8(String s) {
        return s == null ? new byte[0] : s.getBytes(StandardCharsets.UTF_8);
    }

    /** The size of an ENTRY record. */
    static int entrySize(byte[] path, byte[] link, byte[] checksum) {
        return RECORD_HEADER + ENTRY_FIXED + path.length + link.length + (checksum != null ? 1 + checksum.length : 0);
    }

    static void putEntry(ByteBuffer b, int id, TreeEntry e, int flags, byte[] path, byte[] link) {
        putEntry(b, id, e, flags, path, link, null);
    }

    /** An ENTRY; with {@code resume}, flag F_RESUME and its fields after the checksum (a version 2 stream only). */
    static void putEntry(ByteBuffer b, int id, TreeEntry e, int flags, byte[] path, byte[] link, Resume resume) {
        byte[] sum = e.checksum();
        if (sum != null) {
            flags |= F_CHECKSUM;
        }
        if (resume != null) {
            flags |= F_RESUME;
        }
        b.put((byte) ENTRY).putInt(entrySize(path, link, sum) - RECORD_HEADER + (resume != null ? RESUME_FIELDS : 0));
        b.putInt(id).put((byte) e.kind().code()).put((byte) flags).putShort((short) (e.mode() & 07777))
                .putLong(e.mtimeNanos()).putLong(e.size());
        b.putShort((short) path.length).put(path).putShort((short) link.length).put(link);
        if (sum != null) {
            b.put((byte) CHECKSUM_SHA256).put(sum);
        }
        if (resume != null) {
            b.putLong(resume.offset()).put(resume.prefixSha256());
        }
    }

    /** Writes a DATA header for {@code length} content bytes that the caller puts after it. */
    static void putDataHeader(ByteBuffer b, int id, int length) {
        b.put((byte) DATA).putInt(4 + length).putInt(id);
    }

    static void putHole(ByteBuffer b, int id, long count) {
        b.put((byte) HOLE).putInt(12).putInt(id).putLong(count);
    }

    static int fileEndSize(byte[] reason) {
        return RECORD_HEADER + FILE_END_FIXED + reason.length;
    }

    static void putFileEnd(ByteBuffer b, int id, byte[] failure, long length, int crc) {
        byte[] reason = failure == null ? new byte[0] : failure;
        b.put((byte) FILE_END).putInt(FILE_END_FIXED + reason.length).putInt(id)
                .put((byte) (failure == null ? STATUS_OK : STATUS_FAILED)).putLong(length).putInt(crc)
                .putShort((short) reason.length).put(reason);
    }

    static int noticeSize(byte[] path, byte[] message) {
        return RECORD_HEADER + NOTICE_FIXED + path.length + message.length;
    }

    static void putNotice(ByteBuffer b, boolean error, byte[] path, byte[] message) {
        b.put((byte) NOTICE).putInt(NOTICE_FIXED + path.length + message.length)
                .put((byte) (error ? SEVERITY_ERROR : SEVERITY_WARNING))
                .putShort((short) path.length).put(path).putShort((short) message.length).put(message);
    }

    static void putEnd(ByteBuffer b, long entries, long bytes, long failures) {
        b.put((byte) END).putInt(END_BODY).putLong(entries).putLong(bytes).putInt((int) Math.min(failures, 0xffffffffL));
    }

    /** A one-line text cut to the format's limit, as UTF-8. */
    static byte[] text(String s) {
        byte[] b = utf8(s.replace('\n', ' '));
        if (b.length <= MAX_TEXT) {
            return b;
        }
        int n = MAX_TEXT;
        while (n > 0 && (b[n] & 0xc0) == 0x80) {
            n--;   // do not cut a character in two
        }
        return java.util.Arrays.copyOf(b, n);
    }

    /**
     * Why {@code path} may not be an entry's path, or null when it may: relative, components
     * separated by single slashes, none empty, {@code .} or {@code ..}, no NUL, within the
     * length limits. The root's path is the empty string, checked by the caller.
     */
    static String pathProblem(String path, int utf8Length) {
        if (utf8Length > MAX_PATH) {
            return "the path is longer than " + MAX_PATH + " bytes";
        }
        if (path.isEmpty()) {
            return "the path is empty";
        }
        if (path.indexOf('\0') >= 0) {
            return "the path contains a NUL character";
        }
        if (path.charAt(0) == '/') {
            return "the path is absolute";
        }
        int start = 0;
        while (start <= path.length()) {
            int slash = path.indexOf('/', start);
            int end = slash < 0 ? path.length() : slash;
            String c = path.substring(start, end);
            if (c.isEmpty()) {
                return "the path has an empty component";
            }
            if (c.equals("..")) {
                return "a '..' component would leave the destination";
            }
            if (c.equals(".")) {
                return "the path has a '.' component";
            }
            if (c.length() * 3 > MAX_COMPONENT && utf8(c).length > MAX_COMPONENT) {
                return "a component is longer than " + MAX_COMPONENT + " bytes";
            }
            if (slash < 0) {
                break;
            }
            start = slash + 1;
        }
        return null;
    }

    /** The parent of a non-empty entry path ("" for a child of the root). */
    static String parent(String path) {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? "" : path.substring(0, slash);
    }

    /** The longest message of a refused stream, in characters: it may quote a path from the stream. */
    static final int MAX_MESSAGE = 1000;

    /**
     * A stream that breaks the format's rules: bad data, as a codec's (exit 65), not a bug. The
     * message quotes the sender's paths and words, so it is sanitized (io.rdmaflux.text.RemoteText).
     */
    static RdmaFluxException malformed(String message) {
        return new RdmaFluxException(ErrorCode.CODEC, "refused tree stream: " + RemoteText.sanitize(message, MAX_MESSAGE));
    }
}
