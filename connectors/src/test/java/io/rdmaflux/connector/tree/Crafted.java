package io.rdmaflux.connector.tree;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * A tree stream written byte by byte from the specification (docs/tree-format.md), without the
 * code under test, so that tests can say anything a hostile sender could.
 */
final class Crafted {

    static final int FILE = 1;
    static final int DIR = 2;
    static final int SYMLINK = 3;
    static final int HARD_LINK = 4;
    static final int DATA_FLAG = 1;

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final DataOutputStream out = new DataOutputStream(bytes);
    private int nextId;
    private long okBytes;
    private long failures;

    /** A stream that starts with the version 1 header and a root directory. */
    static Crafted tree() {
        return new Crafted().header(0).dir("");
    }

    Crafted header(int flags) {
        return run(() -> {
            out.write("RDTR".getBytes(StandardCharsets.US_ASCII));
            out.writeShort(1);
            out.writeShort(flags);
        });
    }

    Crafted dir(String path) {
        return entry(nextId, DIR, 0, 0755, 0, path, "");
    }

    Crafted symlink(String path, String target) {
        return entry(nextId, SYMLINK, 0, 0777, 0, path, target);
    }

    /** A whole file: ENTRY, one DATA, FILE_END OK with the right CRC. */
    Crafted file(String path, byte[] content) {
        int id = nextId;
        entry(id, FILE, DATA_FLAG, 0644, content.length, path, "");
        if (content.length > 0) {
            data(id, content);
        }
        return fileEnd(id, 0, content.length, crc(content), "");
    }

    Crafted entry(int id, int kind, int flags, int mode, long size, String path, String link) {
        byte[] p = path.getBytes(StandardCharsets.UTF_8);
        byte[] l = link.getBytes(StandardCharsets.UTF_8);
        nextId = id + 1;
        return run(() -> {
            out.writeByte(1);
            out.writeInt(28 + p.length + l.length);
            out.writeInt(id);
            out.writeByte(kind);
            out.writeByte(flags);
            out.writeShort(mode);
            out.writeLong(1_000_000_000_000_000_000L);
            out.writeLong(size);
            out.writeShort(p.length);
            out.write(p);
            out.writeShort(l.length);
            out.write(l);
        });
    }

    Crafted data(int id, byte[] content) {
        return run(() -> {
            out.writeByte(2);
            out.writeInt(4 + content.length);
            out.writeInt(id);
            out.write(content);
        });
    }

    Crafted hole(int id, long count) {
        return run(() -> {
            out.writeByte(3);
            out.writeInt(12);
            out.writeInt(id);
            out.writeLong(count);
        });
    }

    Crafted fileEnd(int id, int status, long length, int crc, String reason) {
        byte[] r = reason.getBytes(StandardCharsets.UTF_8);
        if (status == 0) {
            okBytes += length;
        } else {
            failures++;
        }
        return run(() -> {
            out.writeByte(4);
            out.writeInt(19 + r.length);
            out.writeInt(id);
            out.writeByte(status);
            out.writeLong(length);
            out.writeInt(crc);
            out.writeShort(r.length);
            out.write(r);
        });
    }

    /** A NOTICE: severity 1 (warning) or 2 (error); an error counts as a failure in END. */
    Crafted notice(int severity, String path, String message) {
        byte[] p = path.getBytes(StandardCharsets.UTF_8);
        byte[] m = message.getBytes(StandardCharsets.UTF_8);
        if (severity == 2) {
            failures++;
        }
        return run(() -> {
            out.writeByte(5);
            out.writeInt(5 + p.length + m.length);
            out.writeByte(severity);
            out.writeShort(p.length);
            out.write(p);
            out.writeShort(m.length);
            out.write(m);
        });
    }

    /** END with the counts of what was written so far. */
    Crafted end() {
        return end(nextId, okBytes, failures);
    }

    Crafted end(long entries, long bytes, long failureCount) {
        return run(() -> {
            out.writeByte(6);
            out.writeInt(20);
            out.writeLong(entries);
            out.writeLong(bytes);
            out.writeInt((int) failureCount);
        });
    }

    Crafted raw(byte[] b) {
        return run(() -> out.write(b));
    }

    /** Raw bytes given as ints (0-255). */
    Crafted raw(int... b) {
        return run(() -> {
            for (int x : b) {
                out.writeByte(x);
            }
        });
    }

    byte[] bytes() {
        return bytes.toByteArray();
    }

    static int crc(byte[] b) {
        CRC32C c = new CRC32C();
        c.update(b);
        return (int) c.getValue();
    }

    private interface Io {
        void run() throws IOException;
    }

    private Crafted run(Io io) {
        try {
            io.run();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }
}
