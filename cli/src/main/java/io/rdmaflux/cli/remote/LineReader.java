package io.rdmaflux.cli.remote;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Reads UTF-8 lines with a bound on their length, so that a peer printing without newlines
 * cannot grow memory: the part of a line past the bound is skipped, and {@link #truncated()}
 * says so.
 */
final class LineReader {

    private final InputStream in;
    private final int max;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private boolean truncated;

    LineReader(InputStream in, int max) {
        this.in = new BufferedInputStream(in);
        this.max = max;
    }

    /** The next line without its end ({@code \n} or {@code \r\n}), or null at the end of input. */
    String next() throws IOException {
        line.reset();
        truncated = false;
        int b;
        while ((b = in.read()) != -1 && b != '\n') {
            if (line.size() < max) {
                line.write(b);
            } else {
                truncated = true;
            }
        }
        if (b == -1 && line.size() == 0 && !truncated) {
            return null;
        }
        byte[] bytes = line.toByteArray();
        int n = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return new String(bytes, 0, n, StandardCharsets.UTF_8);
    }

    /** Whether the last line returned was longer than the bound and cut. */
    boolean truncated() {
        return truncated;
    }
}
