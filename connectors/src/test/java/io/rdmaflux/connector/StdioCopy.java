package io.rdmaflux.connector;

import io.rdmaflux.error.RdmaFluxException;

/**
 * A tiny cat for tests, run as a separate process: copies {@code args[0]} (or stdin) to
 * {@code args[1]} (or stdout) through a source and a sink; on failure it prints one line on
 * stderr and exits with the error code's wire number (the tools' exit codes belong to the CLI). It stands in for rdsend | rdrecv without a channel.
 */
public final class StdioCopy {

    private StdioCopy() {
    }

    public static void main(String[] args) {
        try {
            Source source = Source.fileOrStdin(args.length > 0 ? args[0] : null);
            Sink sink = Sink.fileOrStdout(args.length > 1 ? args[1] : null);
            SinkResult r = sink.write(source.open(), source.metadata()).block();
            System.err.println("copied " + r.bytes() + " bytes to " + r.location());
            System.exit(0);
        } catch (RdmaFluxException e) {
            System.err.println("stdiocopy: " + e.getMessage());
            System.exit(e.code().wire());
        }
    }
}
