package io.rdmaflux.connector.tree;

import static org.assertj.core.api.Assertions.assertThat;

import io.rdmaflux.error.ErrorCode;
import io.rdmaflux.error.RdmaFluxException;
import io.rdmaflux.text.RemoteText;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Seeded-random properties of {@link TreeParser} (issue 22, property tests). Streams are written
 * with {@link Crafted} (from the specification, not the code under test) together with the
 * records the parser must report for them; then:
 * <ul>
 * <li>a valid stream, fed whole or cut anywhere, gives exactly those records (file contents
 *     joined across cuts), and {@link TreeParser#finish} accepts its end;</li>
 * <li>a hostile stream (a valid one truncated, bit-flipped, overwritten with large length
 *     fields, with bytes inserted, or junk after a good header), cut anywhere, is read or
 *     refused exactly as a whole-stream reference reader written from docs/tree-format.md reads
 *     or refuses it (same records when read); a refusal is a RdmaFluxException with the code the
 *     code uses today, CODEC (the javadoc of TreeParser says PROTOCOL), and a one-line
 *     "refused tree stream: ..." message: never another exception.</li>
 * </ul>
 * Failures name the seed, the case and the cuts.
 */
class TreeParserPropertyTest {

    private static final int CASES = 1_500;
    private static final String[] NAMES = {"a", "b", "dir", "f.txt", "r\u00e9pertoire", "\u30d5\u30a1\u30a4\u30eb", "x y", "-", "..a"};

    /** Records as text; consecutive DATA for one file are joined, since cuts split them anywhere. */
    private static final class Recorder implements TreeParser.Handler {
        final List<String> events = new ArrayList<>();
        private int dataId = -1;
        private final StringBuilder data = new StringBuilder();

        private void flushData() {
            if (dataId >= 0) {
                events.add("data " + dataId + " " + data);
                dataId = -1;
                data.setLength(0);
            }
        }

        private void add(String event) {
            flushData();
            events.add(event);
        }

        @Override
        public void header(int flags) {
            add("header " + flags);
        }

        @Override
        public void entry(int id, TreeEntry e, int flags) {
            add(entryEvent(id, e.path(), e.kind(), e.mode(), e.mtimeNanos(), e.size(), e.link(), flags));
        }

        @Override
        public void resumed(int id, TreeFormat.Resume r) {
            add("resumed " + id + " " + r.offset() + " " + HexFormat.of().formatHex(r.prefixSha256()));
        }

        @Override
        public void data(int id, ByteBuffer d) {
            if (id != dataId) {
                flushData();
                dataId = id;
            }
            ByteBuffer copy = d.duplicate();
            byte[] b = new byte[copy.remaining()];
            copy.get(b);
            data.append(HexFormat.of().formatHex(b));
        }

        @Override
        public void hole(int id, long count) {
            add("hole " + id + " " + count);
        }

        @Override
        public void fileEnd(int id, String failure, long length, int crc) {
            add("fileEnd " + id + " " + failure + " " + length + " " + crc);
        }

        @Override
        public void notice(boolean error, String path, String message) {
            add("notice " + error + " '" + path + "' '" + message + "'");
        }

        @Override
        public void end(long entries, long bytes, long failures) {
            add("end " + entries + " " + bytes + " " + failures);
        }

        List<String> done() {
            flushData();
            return events;
        }
    }

    private static String entryEvent(int id, String path, TreeEntry.Kind kind, int mode, long mtime, long size, String link, int flags) {
        return "entry " + id + " '" + path + "' " + kind + " " + Integer.toOctalString(mode) + " " + mtime + " " + size + " " + link + " " + flags;
    }

    /** A valid stream and the records it holds. */
    private record Stream(byte[] bytes, List<String> events) {
    }

    private static final long MTIME = 1_000_000_000_000_000_000L; // what Crafted writes

    private static Stream validStream(Random r) {
        Crafted c = Crafted.tree();
        List<String> ev = new ArrayList<>();
        ev.add("header 0");
        ev.add(entryEvent(0, "", TreeEntry.Kind.DIRECTORY, 0755, MTIME, 0, null, 0));
        int id = 1;
        long okBytes = 0;
        long failures = 0;
        int records = r.nextInt(12);
        for (int i = 0; i < records; i++) {
            String path = NAMES[r.nextInt(NAMES.length)] + (r.nextBoolean() ? "/" + NAMES[r.nextInt(NAMES.length)] : "");
            switch (r.nextInt(5)) {
                case 0 -> {
                    c.dir(path);
                    ev.add(entryEvent(id, path, TreeEntry.Kind.DIRECTORY, 0755, MTIME, 0, null, 0));
                }
                case 1 -> {
                    String target = r.nextBoolean() ? "../" + NAMES[r.nextInt(NAMES.length)] : "/etc/x";
                    c.symlink(path, target);
                    ev.add(entryEvent(id, path, TreeEntry.Kind.SYMLINK, 0777, MTIME, 0, target, 0));
                }
                case 2 -> {
                    int sev = 1 + r.nextInt(2);
                    String message = "cannot read: " + NAMES[r.nextInt(NAMES.length)];
                    c.notice(sev, path, message);
                    ev.add("notice " + (sev == 2) + " '" + path + "' '" + message + "'");
                    if (sev == 2) {
                        failures++;
                    }
                    continue; // no entry id used
                }
                default -> {
                    byte[] content = new byte[r.nextInt(4) == 0 ? r.nextInt(40_000) : r.nextInt(64)];
                    r.nextBytes(content);
                    c.entry(id, Crafted.FILE, Crafted.DATA_FLAG, 0644, content.length, path, "");
                    ev.add(entryEvent(id, path, TreeEntry.Kind.FILE, 0644, MTIME, content.length, null, Crafted.DATA_FLAG));
                    // contents in several DATA records, a HOLE sometimes in between
                    int at = 0;
                    StringBuilder run = new StringBuilder();
                    while (at < content.length) {
                        int n = 1 + r.nextInt(content.length - at);
                        c.data(id, Arrays.copyOfRange(content, at, at + n));
                        run.append(HexFormat.of().formatHex(content, at, at + n));
                        at += n;
                        if (r.nextInt(4) == 0) {
                            long count = 1 + r.nextInt(1 << 20);
                            ev.add("data " + id + " " + run);
                            run.setLength(0);
                            c.hole(id, count);
                            ev.add("hole " + id + " " + count);
                        }
                    }
                    if (run.length() > 0) {
                        ev.add("data " + id + " " + run);
                    }
                    if (r.nextInt(5) == 0) {
                        String reason = r.nextBoolean() ? "" : "I/O error";
                        c.fileEnd(id, 1, content.length, Crafted.crc(content), reason);
                        failures++;
                        // an empty reason is read as the parser's default words
                        ev.add("fileEnd " + id + " " + (reason.isEmpty() ? "failed on the sending side" : reason)
                                + " " + content.length + " " + Crafted.crc(content));
                    } else {
                        c.fileEnd(id, 0, content.length, Crafted.crc(content), "");
                        okBytes += content.length;
                        ev.add("fileEnd " + id + " null " + content.length + " " + Crafted.crc(content));
                    }
                }
            }
            id++;
        }
        c.end(id, okBytes, failures);
        ev.add("end " + id + " " + okBytes + " " + failures);
        return new Stream(c.bytes(), ev);
    }

    /** Cut points: none, every byte, or random. */
    private static int[] cuts(Random r, int length) {
        return switch (r.nextInt(4)) {
            case 0 -> new int[0];
            case 1 -> length > 3000 ? new int[0] : java.util.stream.IntStream.range(1, length).toArray();
            default -> r.ints(r.nextInt(20), 0, Math.max(1, length)).sorted().distinct().toArray();
        };
    }

    private static List<String> parse(byte[] stream, int[] cuts) throws Exception {
        Recorder rec = new Recorder();
        TreeParser p = new TreeParser(rec);
        int from = 0;
        for (int cut : cuts) {
            p.feed(ByteBuffer.wrap(stream, from, cut - from).slice());
            from = cut;
        }
        p.feed(ByteBuffer.wrap(stream, from, stream.length - from).slice());
        p.finish();
        return rec.done();
    }


    // ------------------------------------------------------------------ reference reader

    /** Thrown by the reference reader where the stream is not valid. */
    private static final class Refused extends Exception {
        Refused(String why) {
            super(why, null, false, false);
        }
    }

    /**
     * A reference reader written from docs/tree-format.md, on the whole stream at once (no cuts,
     * no state machine): the records a valid stream holds, or {@link Refused}. It shares only
     * {@link TreeRules#entry} (an entry's fields, tested in TreeRulesTest) and the sanitizer with
     * the parser.
     */
    private static List<String> reference(byte[] stream) throws Refused {
        Recorder rec = new Recorder();
        ByteBuffer b = ByteBuffer.wrap(stream);
        need(b, 8);
        int magic = b.getInt();
        int version = b.getShort() & 0xffff;
        if (magic != TreeFormat.MAGIC || version != 1 && version != 2) {
            throw new Refused("header");
        }
        int flags = b.getShort() & 0xffff;
        if ((flags & ~TreeFormat.FLAG_LISTING) != 0) {
            throw new Refused("flags");
        }
        rec.header(flags);
        while (true) {
            need(b, 5);
            int type = b.get() & 0xff;
            long length = b.getInt() & 0xffffffffL;
            need(b, length);
            ByteBuffer body = b.slice(b.position(), (int) length);
            b.position(b.position() + (int) length);
            if (type != TreeFormat.DATA && length > TreeFormat.MAX_CONTROL) {
                throw new Refused("control record too long");
            }
            try {
                switch (type) {
                    case TreeFormat.ENTRY -> {
                        need(body, TreeFormat.ENTRY_FIXED);
                        int id = body.getInt();
                        int kind = body.get() & 0xff;
                        int f = body.get() & 0xff;
                        int mode = body.getShort() & 0xffff;
                        long mtime = body.getLong();
                        long size = body.getLong();
                        String path = string(body, TreeFormat.MAX_PATH);
                        String link = string(body, TreeFormat.MAX_LINK);
                        byte[] sum = null;
                        if ((f & TreeFormat.F_CHECKSUM) != 0) {
                            need(body, 1 + TreeFormat.SHA256_LENGTH);
                            if (body.get() != TreeFormat.CHECKSUM_SHA256) {
                                throw new Refused("checksum kind");
                            }
                            sum = new byte[TreeFormat.SHA256_LENGTH];
                            body.get(sum);
                        }
                        // Version 2: RESUME, its offset (at most the size) and the prefix's SHA-256, on a file of the tree with DATA.
                        TreeFormat.Resume resume = null;
                        if ((f & TreeFormat.F_RESUME) != 0) {
                            if (version < 2) {
                                throw new Refused("resume in version 1");
                            }
                            need(body, 40);
                            long at = body.getLong();
                            byte[] prefix = new byte[32];
                            body.get(prefix);
                            resume = new TreeFormat.Resume(at, prefix);
                        }
                        end(body);
                        TreeEntry e = TreeRules.entry(id, kind, f, mode, mtime, size, path, link, sum);
                        if (resume != null && (e.kind() != TreeEntry.Kind.FILE || (f & TreeFormat.F_DATA) == 0
                                || path.isEmpty() || resume.offset() < 0 || resume.offset() > size)) {
                            throw new Refused("resume where none may be");
                        }
                        rec.entry(id, e, f);
                        if (resume != null) {
                            rec.resumed(id, resume);
                        }
                    }
                    case TreeFormat.DATA -> {
                        need(body, 4);
                        int id = body.getInt();
                        if (body.hasRemaining()) {
                            rec.data(id, body);
                        }
                    }
                    case TreeFormat.HOLE -> {
                        exactly(length, 12);
                        int id = body.getInt();
                        long count = body.getLong();
                        if (count <= 0) {
                            throw new Refused("hole");
                        }
                        rec.hole(id, count);
                    }
                    case TreeFormat.FILE_END -> {
                        need(body, TreeFormat.FILE_END_FIXED);
                        int id = body.getInt();
                        int status = body.get() & 0xff;
                        long len = body.getLong();
                        int crc = body.getInt();
                        String reason = RemoteText.sanitize(string(body, TreeFormat.MAX_TEXT), TreeFormat.MAX_TEXT);
                        end(body);
                        if (status > 1) {
                            throw new Refused("status");
                        }
                        rec.fileEnd(id, status == 0 ? null : reason.isEmpty() ? "failed on the sending side" : reason, len, crc);
                    }
                    case TreeFormat.NOTICE -> {
                        need(body, TreeFormat.NOTICE_FIXED);
                        int severity = body.get() & 0xff;
                        String path = RemoteText.sanitize(string(body, TreeFormat.MAX_PATH), TreeFormat.MAX_PATH);
                        String message = RemoteText.sanitize(string(body, TreeFormat.MAX_TEXT), TreeFormat.MAX_TEXT);
                        end(body);
                        if (severity != 1 && severity != 2) {
                            throw new Refused("severity");
                        }
                        rec.notice(severity == 2, path, message);
                    }
                    case TreeFormat.END -> {
                        exactly(length, 20);
                        rec.end(body.getLong(), body.getLong(), body.getInt() & 0xffffffffL);
                        if (b.hasRemaining()) {
                            throw new Refused("after END");
                        }
                        return rec.done();
                    }
                    default -> throw new Refused("type");
                }
            } catch (RdmaFluxException e) {
                throw new Refused("entry rules: " + e.getMessage());
            }
        }
    }

    private static void need(ByteBuffer b, long n) throws Refused {
        if (b.remaining() < n) {
            throw new Refused("short");
        }
    }

    private static void exactly(long length, int n) throws Refused {
        if (length != n) {
            throw new Refused("length");
        }
    }

    private static void end(ByteBuffer b) throws Refused {
        if (b.hasRemaining()) {
            throw new Refused("bytes left in a record");
        }
    }

    private static String string(ByteBuffer b, int max) throws Refused {
        need(b, 2);
        int n = b.getShort() & 0xffff;
        if (n > max) {
            throw new Refused("string too long");
        }
        need(b, n);
        byte[] raw = new byte[n];
        b.get(raw);
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(raw)).toString();
        } catch (CharacterCodingException e) {
            throw new Refused("utf-8");
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1L, 22L, 0x5eedL, -3L})
    void validStreamsGiveTheirRecordsWhereverTheyAreCut(long seed) throws Exception {
        Random r = new Random(seed);
        for (int i = 0; i < CASES; i++) {
            Stream s = validStream(r);
            int[] cuts = cuts(r, s.bytes().length);
            String where = "seed " + seed + ", case " + i + ", " + s.bytes().length + " bytes cut at " + Arrays.toString(cuts);
            assertThat(parse(s.bytes(), cuts)).as(where).containsExactlyElementsOf(s.events());
            assertThat(reference(s.bytes())).as(where + ": the reference reader").containsExactlyElementsOf(s.events());
        }
    }

    private static byte[] mutate(Random r, byte[] v) {
        switch (r.nextInt(6)) {
            case 0:
                return Arrays.copyOf(v, r.nextInt(v.length + 1));
            case 1: {
                byte[] m = v.clone();
                for (int k = 1 + r.nextInt(3); k > 0; k--) {
                    m[r.nextInt(m.length)] ^= (byte) (1 << r.nextInt(8));
                }
                return m;
            }
            case 2: {
                // a length field (or anything) maxed out
                byte[] m = v.clone();
                int at = r.nextInt(m.length);
                Arrays.fill(m, at, Math.min(m.length, at + 1 + r.nextInt(4)), r.nextBoolean() ? (byte) 0xff : (byte) 0x7f);
                return m;
            }
            case 3: {
                byte[] junk = new byte[1 + r.nextInt(12)];
                r.nextBytes(junk);
                int at = r.nextInt(v.length + 1);
                byte[] m = new byte[v.length + junk.length];
                System.arraycopy(v, 0, m, 0, at);
                System.arraycopy(junk, 0, m, at, junk.length);
                System.arraycopy(v, at, m, at + junk.length, v.length - at);
                return m;
            }
            case 4: {
                // a good header, then random bytes
                byte[] m = Arrays.copyOf(v, 8 + r.nextInt(300));
                for (int k = 8; k < m.length; k++) {
                    m[k] = (byte) r.nextInt(256);
                }
                return m;
            }
            default: {
                byte[] m = v.clone();
                for (int k = 1 + r.nextInt(6); k > 0; k--) {
                    m[r.nextInt(m.length)] = (byte) r.nextInt(256);
                }
                return m;
            }
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {2L, 23L, 0xfeedL, -4L, 99L})
    void hostileStreamsAreReadOrRefusedAsTheReferenceReaderDoes(long seed) {
        Random r = new Random(seed);
        for (int i = 0; i < CASES * 2; i++) {
            byte[] stream = mutate(r, validStream(r).bytes());
            int[] cuts = cuts(r, stream.length);
            String where = "seed " + seed + ", case " + i + ", cut at " + Arrays.toString(cuts) + ", stream "
                    + (stream.length > 200 ? HexFormat.of().formatHex(stream, 0, 200) + "...(" + stream.length + " bytes)"
                    : HexFormat.of().formatHex(stream));
            List<String> expected;
            try {
                expected = reference(stream);
            } catch (Refused e) {
                expected = null;
            }
            List<String> events;
            try {
                events = parse(stream, cuts);
            } catch (RdmaFluxException e) {
                assertThat(e.code()).as(where + ": " + e.getMessage()).isEqualTo(ErrorCode.CODEC);
                assertThat(e.getMessage()).as(where).startsWith("refused tree stream: ").doesNotContain("\n").doesNotContain("\r");
                assertThat(expected).as(where + ": refused (" + e.getMessage() + "), the reference reads").isNull();
                continue;
            } catch (Exception | Error e) {
                throw new AssertionError(where + ": threw " + e, e);
            }
            assertThat(expected).as(where + ": read, the reference refuses it").isNotNull();
            assertThat(events).as(where).containsExactlyElementsOf(expected);
        }
    }
}
