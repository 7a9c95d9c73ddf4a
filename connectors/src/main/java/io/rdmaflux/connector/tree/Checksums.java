package io.rdmaflux.connector.tree;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** Content checksums for syncs by content (SHA-256, the format's checksum algorithm 1). */
final class Checksums {

    private Checksums() {
    }

    static byte[] sha256(Path file, LinkOption... how) throws IOException {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        OpenOption[] options = how.length == 0 ? new OpenOption[] {StandardOpenOption.READ}
                : new OpenOption[] {StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS};
        ByteBuffer buf = ByteBuffer.allocate(256 * 1024);
        try (FileChannel ch = FileChannel.open(file, options)) {
            while (ch.read(buf) >= 0) {
                buf.flip();
                md.update(buf);
                buf.clear();
            }
        }
        return md.digest();
    }
}
