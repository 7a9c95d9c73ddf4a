package io.rdmaflux.cli;

/** An rdpipe segment that failed: its exit status (rdpipe's, as pipefail) and one line saying where and why. */
final class SegmentFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;

    SegmentFailure(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    int status() {
        return status;
    }
}
