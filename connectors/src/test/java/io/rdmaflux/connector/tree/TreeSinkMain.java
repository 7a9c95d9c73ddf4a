package io.rdmaflux.connector.tree;

import io.rdmaflux.connector.ChannelSource;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.nio.file.Path;

/**
 * Writes the tree stream on standard input into {@code args[0]}: the receiving side in a process
 * of its own. Prints the report's failure lines on standard output; exits 0 when the copy is
 * complete, 1 when not, 66 when the stream failed.
 */
public final class TreeSinkMain {

    private TreeSinkMain() {
    }

    public static void main(String[] args) {
        try {
            ChannelSource in = ChannelSource.ofStream("standard input", () -> new FileInputStream(FileDescriptor.in), true);
            TreeReport report = TreeSink.of(Path.of(args[0])).writeTree(in.open()).block(Trees.T);
            report.failureLines().forEach(System.out::println);
            System.exit(report.complete() ? 0 : 1);
        } catch (Exception e) {
            System.err.println("tree sink: " + e.getMessage());
            System.exit(66);
        }
    }
}
