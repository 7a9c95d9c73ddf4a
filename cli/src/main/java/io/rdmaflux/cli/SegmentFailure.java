package io.rdmaflux.cli;

/** An rdpipe segment that failed: its exit status (rdpipe's, as pipefail) and one line saying where and why. */
final class SegmentFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final boolean quiet;

    SegmentFailure(int status, String message) {
        this(status, message, false);
    }

    /** @param quiet nothing to report: rdpipe's stdout reader stopped reading ({@link ExitCode#PIPE}) */
    SegmentFailure(int status, String message, boolean quiet) {
        super(message, null, false, false);
        this.status = status;
        this.quiet = quiet;
    }

    int status() {
        return status;
    }

    boolean quiet() {
        return quiet;
    }
}
